// One tunnel: its settings (editable), who may reach it (its Access), its client, and its last hour per minute drawn the way frp's
// dashboard shows a proxy: requests and errors, p50 and p95 latency (GET /api/tunnels/:id/traffic),
// drawn again whenever the status stream says its traffic moved.
import { useRef, useState } from 'preact/hooks';
import { rememberFocus } from '../components/focus-return.ts';
import { MinuteCharts, type MinuteChart, type MinuteTable } from '../components/minute-charts.tsx';
import { ErrorText, Loading, Unavailable } from '../components/notice.tsx';
import { ClientBadge } from '../components/tunnel-state.tsx';
import { TunnelSettings } from '../components/tunnel-settings.tsx';
import { TunnelAccess } from '../components/access-editor.tsx';
import { when } from '../format.ts';
import { useReloadWhenMoved } from '../reload-when-moved.ts';
import { useResource } from '../resource.ts';
import { useTunnelStatus, type TunnelStatus } from '../tunnel-status.ts';
import { publicUrl } from '../public-links.ts';

const ms = (v: number | null) => (v === null ? '—' : `≤ ${v} ms`);

// a minute's requests and errors, then its latency, as frp's dashboard draws a proxy's
const charts: MinuteChart[] = [
  {
    title: 'Requests and errors per minute, an hour ago to now',
    label: (sum, peak) => `Requests and errors per minute over the last hour: ${sum((m) => m.requests)} requests, ${sum((m) => m.errors)} errors, at most ${peak} a minute`,
    format: (v) => `${v}/min`,
    series: [{ name: 'Requests', className: 'requests', value: (m) => m.requests }, { name: 'Errors', className: 'errors', value: (m) => m.errors }],
  },
  {
    title: 'Latency per minute (median and 95th percentile), an hour ago to now',
    label: (_sum, peak) => `Latency per minute over the last hour, median and 95th percentile: at most ${peak} ms`,
    format: (v) => `≤ ${v} ms`,
    series: [{ name: 'p50', className: 'p50', value: (m) => m.p50Ms }, { name: 'p95', className: 'p95', value: (m) => m.p95Ms }],
  },
];

const table: MinuteTable = {
  summary: 'The minutes with requests, as a table',
  caption: 'Requests, errors and latency per minute',
  empty: 'No requests in the last hour.',
  columns: [
    { head: 'Requests', cell: (m) => m.requests }, { head: 'Errors', cell: (m) => m.errors },
    { head: 'p50', cell: (m) => ms(m.p50Ms) }, { head: 'p95', cell: (m) => ms(m.p95Ms) },
  ],
};

function ClientState({ status }: { status: TunnelStatus | undefined }) {
  if (!status) return <Loading />;
  if (!status.enabled) return <p>Disabled: the tunnel server refuses its client.</p>;
  return (
    <p>
      <ClientBadge status={status} />{' '}
      {status.connected ? `since ${when(status.connectedSince)}` : status.lastSeen ? `last seen ${when(status.lastSeen)}` : 'not seen since the panel started'}
    </p>
  );
}

export function TunnelPage({ id }: { id: string }) {
  const list = useResource('/api/tunnels');
  const status = useTunnelStatus();
  const traffic = useResource(`/api/tunnels/${encodeURIComponent(id)}/traffic`);
  const [editing, setEditing] = useState(false);
  const focusBack = useRef<(() => void) | undefined>(undefined);
  const live = status.data?.tunnels.find((t) => t.id === id);
  // the status stream carries every tunnel's per-minute requests: when this one's move, the chart is asked again
  const moved = live?.traffic ? `${live.traffic.perMinute.join(',')}/${live.traffic.lastHour.errors}` : '';
  useReloadWhenMoved(traffic, moved);
  if (list.unavailable) return <><h1>Tunnel</h1><Unavailable feature="Tunnels" /></>;
  const tunnel = list.data?.tunnels.find((t) => t.id === id);
  const back = <p><a href="/tunnels">← Back to the tunnel list</a></p>;
  if (!list.data) return <><h1>Tunnel</h1>{back}<ErrorText message={list.error} />{!list.error && <Loading />}</>;
  if (!tunnel) return <><h1>Tunnel not found</h1><p>No tunnel has the id {id}; it may have been deleted.</p>{back}</>;
  const hour = live?.traffic?.lastHour;
  return (
    <>
      <h1>Tunnel {tunnel.subdomain}</h1>
      {back}
      <section class="card" aria-labelledby="tunnel-facts">
        <h2 id="tunnel-facts">Settings</h2>
        <dl class="facts wide">
          <div><dt>Address</dt><dd><a href={publicUrl(tunnel.fqdn)}>{tunnel.fqdn}</a></dd></div>
          <div><dt>Local port</dt><dd>{tunnel.port}</dd></div>
          <div><dt>Description</dt><dd>{tunnel.description || '—'}</dd></div>
          <div><dt>State</dt><dd>{tunnel.enabled ? 'enabled' : 'disabled'}</dd></div>
          <div><dt>Created</dt><dd>{when(tunnel.createdAt)}</dd></div>
        </dl>
        <button type="button" class="btn" aria-label={`Edit ${tunnel.subdomain}`} onClick={() => { focusBack.current = rememberFocus(); setEditing(true); }}>Edit</button>
      </section>
      {editing && <TunnelSettings tunnel={tunnel} onSaved={list.reload} onClose={() => { setEditing(false); focusBack.current?.(); }} />}
      <section class="card" aria-labelledby="tunnel-access">
        <h2 id="tunnel-access">Access</h2>
        <TunnelAccess id={tunnel.id} />
      </section>
      <section class="card" aria-labelledby="tunnel-client">
        <h2 id="tunnel-client">Client</h2>
        <ErrorText message={status.error} />
        <ClientState status={live} />
      </section>
      <section class="card" aria-labelledby="tunnel-traffic">
        <h2 id="tunnel-traffic">Traffic of the last hour</h2>
        {hour && <p>{hour.requests} requests, {hour.errors} errors ({hour.unreachable} unreachable); latency p50 {ms(hour.p50Ms)}, p95 {ms(hour.p95Ms)}.</p>}
        <ErrorText message={traffic.error} />
        {traffic.data ? <MinuteCharts minutes={traffic.data.minutes} charts={charts} table={table} /> : !traffic.error && <Loading />}
      </section>
    </>
  );
}
