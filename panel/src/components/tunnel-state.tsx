// A tunnel's client (connected, or offline and when it was last seen) and the last hour of traffic
// through a tunnel's or a site's vhost, as the tunnels, sites and dashboard pages show them.
import { bytes, when } from '../format.ts';
import type { Traffic } from '../traffic.ts';
import type { TunnelStatus } from '../tunnel-status.ts';
import { Sparkline } from './sparkline.tsx';

/** The last hour through a tunnel's or a site's vhost: requests per minute, requests, bytes sent, errors, median latency. */
export function TrafficCell({ status }: { status: { traffic?: Traffic } | undefined }) {
  const traffic = status?.traffic;
  const hour = traffic?.lastHour;
  if (!traffic || !hour || hour.requests === 0) return <span class="muted">no requests</span>;
  const errors = hour.errors ? `, ${hour.errors} errors${hour.unreachable ? ` (${hour.unreachable} unreachable)` : ''}` : '';
  return (
    <span class="traffic">
      <Sparkline values={traffic.perMinute} label={`Requests per minute over the last hour: at most ${Math.max(...traffic.perMinute)}, ${traffic.perMinute.at(-1)} this minute`} />
      <span title={`p50 ≤ ${hour.p50Ms} ms, p95 ≤ ${hour.p95Ms} ms`}>{hour.requests} requests, {bytes(hour.bytesOut)}{errors}</span>
    </span>
  );
}

export function ClientBadge({ status }: { status: TunnelStatus | undefined }) {
  if (!status || !status.enabled) return <span class="muted">—</span>;
  return status.connected
    ? <span class="badge badge-active" title={`connected since ${when(status.connectedSince!)}`}>connected</span>
    : <span class="badge badge-failed" title={status.lastSeen ? `last seen ${when(status.lastSeen)}` : 'not seen since the panel started'}>offline</span>;
}
