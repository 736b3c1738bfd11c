// One TCP or UDP tunnel: its settings (editable), its client, and its last hour per minute drawn as
// the HTTP tunnel's page draws its own (GET /api/tunnels/streams/:id/traffic): sessions and errors,
// and bytes each way, which say what a session count cannot (one SSH session may move gigabytes).
// Its status is asked every 5 s, as on the list; the chart is asked again only when that status says
// the tunnel's traffic moved.
import { useEffect, useRef, useState } from 'preact/hooks';
import { LineChart } from '../components/chart.tsx';
import { rememberFocus } from '../components/focus-return.ts';
import { ErrorText, Loading, Unavailable } from '../components/notice.tsx';
import { Copyable } from '../components/secret.tsx';
import { EditStream, label, remote, type StreamState } from '../components/stream-tunnels.tsx';
import { Table } from '../components/table.tsx';
import { bytes, when } from '../format.ts';
import { useResource } from '../resource.ts';
import { clockTime, TRAFFIC_MINUTES as MINUTES, type TrafficMinute } from '../traffic.ts';

function StreamCharts({ minutes }: { minutes: TrafficMinute[] }) {
  const busy = minutes.filter((m) => m.requests > 0);
  const peak = Math.max(1, ...minutes.map((m) => m.requests));
  const peakBytes = Math.max(1, ...minutes.flatMap((m) => [m.bytesIn, m.bytesOut]));
  const sum = (pick: (m: TrafficMinute) => number) => busy.reduce((n, m) => n + pick(m), 0);
  return (
    <>
      <h3>Sessions and errors per minute, an hour ago to now</h3>
      <LineChart label={`Sessions and errors per minute over the last hour: ${sum((m) => m.requests)} sessions, ${sum((m) => m.errors)} errors, at most ${peak} a minute`}
        capacity={MINUTES} max={peak} format={(v) => `${v}/min`}
        series={[{ name: 'Sessions', values: minutes.map((m) => m.requests), className: 'requests' }, { name: 'Errors', values: minutes.map((m) => m.errors), className: 'errors' }]} />
      <h3>Bytes per minute from and to the sources, an hour ago to now</h3>
      <LineChart label={`Bytes per minute over the last hour: ${bytes(sum((m) => m.bytesIn))} in, ${bytes(sum((m) => m.bytesOut))} out, at most ${bytes(peakBytes)} a minute`}
        capacity={MINUTES} max={peakBytes} format={(v) => `${bytes(v)}/min`}
        series={[{ name: 'In', values: minutes.map((m) => m.bytesIn), className: 'in' }, { name: 'Out', values: minutes.map((m) => m.bytesOut), className: 'out' }]} />
      <details>
        <summary>The minutes with sessions, as a table</summary>
        <Table caption="Sessions, errors and bytes per minute" head={['Minute', 'Sessions', 'Errors', 'In', 'Out']} empty="No sessions in the last hour."
          rows={busy.map((m) => [clockTime(m.start), m.requests, m.errors, bytes(m.bytesIn), bytes(m.bytesOut)])} />
      </details>
    </>
  );
}

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
  const { reload } = traffic;
  useEffect(() => { if (moved) void reload(); }, [moved, reload]);
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
        {traffic.data ? <StreamCharts minutes={traffic.data.minutes} /> : !traffic.error && <Loading />}
      </section>
    </>
  );
}
