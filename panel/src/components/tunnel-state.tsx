// A tunnel's client (connected, or offline and when it was last seen) and the last hour of traffic
// through a tunnel's or a site's vhost, as the tunnels, sites and dashboard pages show them.
import { bytes, when } from '../format.ts';
import type { TunnelStatus } from '../tunnel-status.ts';

/** The last hour through a tunnel's or a site's vhost: requests, bytes sent, errors, median latency. */
export function TrafficCell({ status }: { status: Pick<TunnelStatus, 'traffic'> | undefined }) {
  const hour = status?.traffic?.lastHour;
  if (!hour || hour.requests === 0) return <span class="muted">no requests</span>;
  const errors = hour.errors ? `, ${hour.errors} errors${hour.unreachable ? ` (${hour.unreachable} unreachable)` : ''}` : '';
  return <span title={`p50 ≤ ${hour.p50Ms} ms, p95 ≤ ${hour.p95Ms} ms`}>{hour.requests} requests, {bytes(hour.bytesOut)}{errors}</span>;
}

export function ClientBadge({ status }: { status: TunnelStatus | undefined }) {
  if (!status || !status.enabled) return <span class="muted">—</span>;
  return status.connected
    ? <span class="badge badge-active" title={`connected since ${when(status.connectedSince!)}`}>connected</span>
    : <span class="badge badge-failed" title={status.lastSeen ? `last seen ${when(status.lastSeen)}` : 'not seen since the panel started'}>offline</span>;
}
