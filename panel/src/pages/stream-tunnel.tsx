// One TCP or UDP tunnel: its settings (editable), its client, and its last hour per minute drawn as
// the HTTP tunnel's page draws its own (GET /api/tunnels/streams/:id/traffic): sessions and errors,
// and bytes each way, which say what a session count cannot (one SSH session may move gigabytes).
// Its status is asked every 5 s, as on the list; the chart is asked again only when that status says
// the tunnel's traffic moved.
import { useRef, useState } from 'preact/hooks';
import { rememberFocus } from '../components/focus-return.ts';
import { MinuteCharts, type MinuteChart, type MinuteTable } from '../components/minute-charts.tsx';
import { ErrorText, Loading, Unavailable } from '../components/notice.tsx';
import { Copyable } from '../components/secret.tsx';
import { EditStream, label, remote, type StreamState } from '../components/stream-tunnels.tsx';
import { bytes, when } from '../format.ts';
import { useReloadWhenMoved } from '../reload-when-moved.ts';
import { useResource } from '../resource.ts';

// a minute's sessions and errors, then its bytes: an SSH session may move gigabytes in a few minutes
const charts: MinuteChart[] = [
  {
    title: 'Sessions and errors per minute, an hour ago to now',
    label: (sum, peak) => `Sessions and errors per minute over the last hour: ${sum((m) => m.requests)} sessions, ${sum((m) => m.errors)} errors, at most ${peak} a minute`,
    format: (v) => `${v}/min`,
    series: [{ name: 'Sessions', className: 'requests', value: (m) => m.requests }, { name: 'Errors', className: 'errors', value: (m) => m.errors }],
  },
  {
    title: 'Bytes per minute from and to the sources, an hour ago to now',
    label: (sum, peak) => `Bytes per minute over the last hour: ${bytes(sum((m) => m.bytesIn))} in, ${bytes(sum((m) => m.bytesOut))} out, at most ${bytes(peak)} a minute`,
    format: (v) => `${bytes(v)}/min`,
    series: [{ name: 'In', className: 'in', value: (m) => m.bytesIn }, { name: 'Out', className: 'out', value: (m) => m.bytesOut }],
  },
];

const table: MinuteTable = {
  summary: 'The minutes with sessions, as a table',
  caption: 'Sessions, errors and bytes per minute',
  empty: 'No sessions in the last hour.',
  columns: [
    { head: 'Sessions', cell: (m) => m.requests }, { head: 'Errors', cell: (m) => m.errors },
    { head: 'In', cell: (m) => bytes(m.bytesIn) }, { head: 'Out', cell: (m) => bytes(m.bytesOut) },
  ],
};

function ClientState({ state }: { state: StreamState | undefined }) {
  if (!state) return <Loading />;
  if (!state.enabled) return <p>Disabled: nothing listens on its public port.</p>;
  return <p>{state.connected ? <span class="badge badge-active">connected</span> : <span class="badge badge-failed">offline</span>}</p>;
}

export function StreamTunnelPage({ id }: { id: string }) {
  const list = useResource('/api/tunnels/streams');
  const status = useResource('/api/tunnels/streams/status', 5000);
  const traffic = useResource(`/api/tunnels/streams/${encodeURIComponent(id)}/traffic`);
  const [editing, setEditing] = useState(false);
  const focusBack = useRef<(() => void) | undefined>(undefined);
  const live = status.data?.streams.find((s) => s.id === id);
  // each poll carries every stream's per-minute sessions: when this one's move, the chart is asked again
  const moved = live ? `${live.traffic.perMinute.join(',')}/${live.traffic.lastHour.errors}/${live.traffic.lastHour.bytesIn}/${live.traffic.lastHour.bytesOut}` : '';
  useReloadWhenMoved(traffic, moved);
  const back = <p><a href="/tunnels">← Back to the tunnel list</a></p>;
  if (list.unavailable) return <><h1>TCP or UDP tunnel</h1>{back}<Unavailable feature="TCP and UDP tunnels" /></>;
  if (!list.data) return <><h1>TCP or UDP tunnel</h1>{back}<ErrorText message={list.error} />{!list.error && <Loading />}</>;
  const stream = list.data.streams.find((s) => s.id === id);
  if (!stream) return <><h1>Tunnel not found</h1><p>No TCP or UDP tunnel has the id {id}; it may have been deleted.</p>{back}</>;
  const hour = live?.traffic.lastHour;
  const saved = async () => { await Promise.all([list.reload(), status.reload()]); };
  return (
    <>
      <h1>{stream.protocol.toUpperCase()} tunnel on port {stream.publicPort}</h1>
      {back}
      <section class="card" aria-labelledby="stream-facts">
        <h2 id="stream-facts">Settings</h2>
        <dl class="facts wide">
          <div><dt>Public port</dt><dd>{stream.publicPort} ({stream.protocol.toUpperCase()})</dd></div>
          <div><dt>Client port</dt><dd>{stream.port}</dd></div>
          <div><dt>Sources</dt><dd>{stream.allow.length ? stream.allow.join(', ') : 'everyone'}</dd></div>
          {stream.protocol === 'tcp' && <div><dt>PROXY</dt><dd>{stream.proxyProtocol ? 'on' : 'off'}</dd></div>}
          <div><dt>Note</dt><dd>{stream.description || '—'}</dd></div>
          <div><dt>State</dt><dd>{stream.enabled ? 'enabled' : 'disabled'}</dd></div>
          <div><dt>Created</dt><dd>{when(stream.createdAt)}</dd></div>
          <div><dt>Client remote</dt><dd><Copyable text={remote(stream)} label={`Client remote of ${label(stream)}`} /></dd></div>
        </dl>
        <button type="button" class="btn" aria-label={`Edit ${label(stream)}`} onClick={() => { focusBack.current = rememberFocus(); setEditing(true); }}>Edit</button>
      </section>
      {editing && <EditStream key={stream.id} stream={stream} onSaved={saved} onClose={() => { setEditing(false); focusBack.current?.(); }} />}
      <section class="card" aria-labelledby="stream-client">
        <h2 id="stream-client">Client</h2>
        <ErrorText message={status.error} />
        <ClientState state={live} />
      </section>
      <section class="card" aria-labelledby="stream-traffic">
        <h2 id="stream-traffic">Traffic of the last hour</h2>
        {hour && <p>{hour.requests} sessions, {bytes(hour.bytesIn)} in, {bytes(hour.bytesOut)} out, {hour.errors} errors ({hour.unreachable} without a client).</p>}
        <ErrorText message={traffic.error} />
        {traffic.data ? <MinuteCharts minutes={traffic.data.minutes} charts={charts} table={table} /> : !traffic.error && <Loading />}
      </section>
    </>
  );
}
