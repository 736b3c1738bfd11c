// TCP and UDP tunnels on the tunnels page: create (protocol, public port, client port, sources,
// PROXY protocol), the list with a protocol filter, edit, enable/disable and delete, and each one's
// client remote; each row links to the tunnel's own page (pages/stream-tunnel.tsx). Their records
// come from GET /api/tunnels/streams, apart from the HTTP tunnels'.
import { useRef, useState } from 'preact/hooks';
import { api, withQuery, type GetAnswer } from '../api.ts';
import { numberField, useForm } from '../form.ts';
import { when } from '../format.ts';
import { useResource } from '../resource.ts';
import { currentPath, currentQuery, navigate } from '../router.ts';
import { readChoice, writeQuery } from '../list-view.ts';
import { Action, Submit } from './action.tsx';
import { Check, Field, Select } from './field.tsx';
import { ErrorText, Loading } from './notice.tsx';
import { rememberFocus, useRevealed } from './focus-return.ts';
import { Copyable } from './secret.tsx';
import { Sparkline } from './sparkline.tsx';
import { bytes } from '../format.ts';

export type Stream = GetAnswer<'/api/tunnels/streams'>['streams'][number];
export type StreamState = GetAnswer<'/api/tunnels/streams/status'>['streams'][number];
type Protocol = 'tcp' | 'udp';
type Filter = 'all' | Protocol;

const PROTOCOLS = [{ value: 'tcp', label: 'TCP' }, { value: 'udp', label: 'UDP' }] as const;
const PROTOCOL_NAMES = PROTOCOLS.map((p) => p.value);
/** The protocol filter's query parameter (`/tunnels?streams=udp`), apart from the HTTP list's `state`. */
const FILTER_PARAM = 'streams';
const FILTERS: readonly { value: Filter; label: string }[] = [{ value: 'all', label: 'TCP and UDP' }, ...PROTOCOLS];
const PROXY_HINT = 'Sends the PROXY protocol header before the data, so the app sees the real client address. Turn it on only when the app expects it: to any other app the header is garbage and connections fail.';

/** The sources field's text as the list the route takes: split on commas and white space. */
const sources = (text: string) => text.split(/[\s,]+/).filter(Boolean);
export const label = (s: Pick<Stream, 'protocol' | 'publicPort'>) => `${s.protocol.toUpperCase()} ${s.publicPort}`;
export const remote = (s: Stream) => `R:127.0.0.1:${s.tunnelPort}:127.0.0.1:${s.port}${s.protocol === 'udp' ? '/udp' : ''}`;

function CreateStream({ onCreated }: { onCreated(): Promise<void> }) {
  const form = useForm({ protocol: 'tcp' as Protocol, publicPort: '', port: '', allow: '', proxyProtocol: false, description: '' }, { lists: ['allow'] });
  const v = form.values;
  return (
    <form class="card" aria-labelledby="new-stream" onSubmit={(e) => { e.preventDefault(); void form.submit(async () => {
      const made = await api('POST', '/api/tunnels', {
        protocol: v.protocol, publicPort: numberField(v.publicPort), port: numberField(v.port), allow: sources(v.allow),
        proxyProtocol: v.protocol === 'tcp' && v.proxyProtocol, description: v.description,
      });
      form.reset();
      await onCreated();
      return made.tunnel;
    }, (t) => `Tunnel ${'publicPort' in t ? label(t) : t.fqdn} created.`); }}>
      <h2 id="new-stream">New TCP or UDP tunnel</h2>
      <p class="muted">A port of the box passed to a port of the client machine: SSH, a database, a game server. No subdomain, no certificate.</p>
      <ErrorText message={form.error} />
      <div class="grid">
        <Select label="Protocol" value={v.protocol} options={PROTOCOLS} onChange={(p) => form.set('protocol', p)} error={form.fieldErrors.protocol} />
        <Field label="Public port" value={v.publicPort} onInput={(x) => form.set('publicPort', x)} error={form.fieldErrors.publicPort} inputMode="numeric" hint="on the box; open it in the firewall too" required />
        <Field label="Client port" value={v.port} onInput={(x) => form.set('port', x)} error={form.fieldErrors.port} inputMode="numeric" hint="on the client machine (22 for SSH)" required />
        <Field label="Allowed sources" value={v.allow} onInput={(x) => form.set('allow', x)} error={form.fieldErrors.allow} hint="addresses or networks (203.0.113.0/24), separated by commas; empty allows everyone" />
        <Field label="Note" value={v.description} onInput={(x) => form.set('description', x)} error={form.fieldErrors.description} />
      </div>
      {v.protocol === 'tcp' && <Check label="PROXY protocol towards the client machine" checked={v.proxyProtocol} onChange={(x) => form.set('proxyProtocol', x)} hint={PROXY_HINT} />}
      <Submit busy={form.busy}>Create TCP or UDP tunnel</Submit>
    </form>
  );
}

export function EditStream({ stream, onSaved, onClose }: { stream: Stream; onSaved(): Promise<void>; onClose(): void }) {
  // opened below the list: brought into view with focus on its heading, as the HTTP tunnels' edit
  const heading = useRevealed<HTMLHeadingElement>();
  const form = useForm({ publicPort: String(stream.publicPort), port: String(stream.port), allow: stream.allow.join(', '), proxyProtocol: stream.proxyProtocol, description: stream.description ?? '' }, { lists: ['allow'] });
  const v = form.values;
  return (
    <form class="card" aria-labelledby="edit-stream" onSubmit={(e) => { e.preventDefault(); void form.submit(async () => {
      await api('PATCH', `/api/tunnels/streams/${stream.id}`, {
        publicPort: numberField(v.publicPort), port: numberField(v.port), allow: sources(v.allow), ...(stream.protocol === 'tcp' ? { proxyProtocol: v.proxyProtocol } : {}), description: v.description,
      });
      await onSaved();
      onClose();
    }, `Tunnel ${label(stream)} saved.`); }}>
      <h2 id="edit-stream" ref={heading} tabIndex={-1}>Edit {label(stream)}</h2>
      <ErrorText message={form.error} />
      <div class="grid">
        <Field label="Public port" value={v.publicPort} onInput={(x) => form.set('publicPort', x)} error={form.fieldErrors.publicPort} inputMode="numeric" required />
        <Field label="Client port" value={v.port} onInput={(x) => form.set('port', x)} error={form.fieldErrors.port} inputMode="numeric" required />
        <Field label="Allowed sources" value={v.allow} onInput={(x) => form.set('allow', x)} error={form.fieldErrors.allow} hint="empty allows everyone" />
        <Field label="Note" value={v.description} onInput={(x) => form.set('description', x)} error={form.fieldErrors.description} />
      </div>
      {stream.protocol === 'tcp' && <Check label="PROXY protocol towards the client machine" checked={v.proxyProtocol} onChange={(x) => form.set('proxyProtocol', x)} hint={PROXY_HINT} />}
      <Submit busy={form.busy}>Save</Submit> <button type="button" class="btn" onClick={onClose}>Cancel</button>
    </form>
  );
}

/**
 * The client's state and its traffic: the last hour's sessions per minute (a sparkline), sessions
 * and bytes each way over the hour and over the last minute (what is going on now, which a busy
 * hour hides), and 502s (no client listened).
 */
function StreamState({ state }: { state: StreamState | undefined }) {
  if (!state || !state.enabled) return <span class="muted">—</span>;
  const { lastHour: hour, lastMinute: minute } = state.traffic;
  const badge = state.connected ? <span class="badge badge-active">connected</span> : <span class="badge badge-failed">offline</span>;
  if (hour.requests === 0) return <>{badge} <span class="muted">no sessions</span></>;
  return (
    <span class="traffic traffic-wrap">
      {badge}
      <Sparkline values={state.traffic.perMinute} label={`Sessions per minute over the last hour: at most ${Math.max(...state.traffic.perMinute)}, ${state.traffic.perMinute.at(-1)} this minute`} />
      <span>last hour: {sessions(hour)}{hour.unreachable ? `, ${hour.unreachable} without a client` : ''}</span>
      <span class="muted">last minute: {minute.requests ? sessions(minute) : 'no sessions'}</span>
    </span>
  );
}

const sessions = (w: StreamState['traffic']['lastHour']) => `${w.requests} ${w.requests === 1 ? 'session' : 'sessions'}, ${bytes(w.bytesIn)} in, ${bytes(w.bytesOut)} out`;

export function StreamTunnels() {
  // in the URL, as the HTTP list's filters: a link opens it filtered, Back undoes a filter
  const filter: Filter = readChoice(currentQuery.value, FILTER_PARAM, PROTOCOL_NAMES) || 'all';
  const setFilter = (f: Filter) => navigate(currentPath.value + writeQuery(currentQuery.value, { [FILTER_PARAM]: f === 'all' ? '' : f }));
  const list = useResource(filter === 'all' ? '/api/tunnels/streams' : withQuery('GET', '/api/tunnels/streams', { protocol: filter }));
  // the tunnel being edited, and the Edit button's place, where focus goes back when the form closes
  const [editing, setEditing] = useState<string>();
  const focusBack = useRef<(() => void) | undefined>(undefined);
  const openEdit = (id: string) => { focusBack.current = rememberFocus(); setEditing(id); };
  const closeEdit = () => { setEditing(undefined); focusBack.current?.(); };
  const edited = list.data?.streams.find((s) => s.id === editing);
  // the client's state and traffic, asked again every 5 s as the HTTP tunnels' status is pushed
  const status = useResource('/api/tunnels/streams/status', 5000);
  const stateOf = (id: string) => status.data?.streams.find((x) => x.id === id);
  // a tunnel made, changed or toggled has its state at once, not at the next poll (up to 5 s of
  // "—" for a new one, or the old state beside the new badge)
  const reload = async () => { await Promise.all([list.reload(), status.reload()]); };
  return (
    <>
      <CreateStream onCreated={reload} />
      <section class="card" aria-labelledby="stream-list">
        <h2 id="stream-list">TCP and UDP tunnels</h2>
        <ErrorText message={list.error} />
        <Select<Filter> label="Show" value={filter} options={FILTERS} onChange={(f) => setFilter(f)} />
        {!list.data ? <Loading /> : list.data.streams.length === 0 ? <p class="muted">No {filter === 'all' ? 'TCP or UDP' : filter.toUpperCase()} tunnels.</p> : (
          <div class="table-wrap">
            <table>
              <thead><tr>{['Public port', 'Client port', 'Sources', 'PROXY', 'Note', 'State', 'Client and traffic', 'Client remote', 'Created', 'Actions'].map((h) => <th key={h} scope="col">{h}</th>)}</tr></thead>
              <tbody>
                {list.data.streams.map((s) => (
                  <tr key={s.id}>
                    <th scope="row"><a href={`/tunnels/streams/${encodeURIComponent(s.id)}`}>{label(s)}</a></th>
                    <td>{s.port}</td>
                    <td>{s.allow.length ? s.allow.join(', ') : 'everyone'}</td>
                    <td>{s.proxyProtocol ? 'on' : 'off'}</td>
                    <td>{s.description || '—'}</td>
                    <td><span class={`badge ${s.enabled ? 'badge-active' : 'badge-inactive'}`}>{s.enabled ? 'enabled' : 'disabled'}</span></td>
                    <td><StreamState state={stateOf(s.id)} /></td>
                    <td><Copyable text={remote(s)} label={`Client remote of ${label(s)}`} /></td>
                    <td>{when(s.createdAt)}</td>
                    <td class="actions">
                      <button type="button" class="btn" aria-label={`Edit ${label(s)}`} onClick={() => openEdit(s.id)}>Edit</button>
                      <Action label={`${s.enabled ? 'Disable' : 'Enable'} ${label(s)}`} done={`Tunnel ${label(s)} ${s.enabled ? 'disabled' : 'enabled'}.`}
                        run={async () => { await api('PATCH', `/api/tunnels/${s.id}`, { enabled: !s.enabled }); await reload(); }}>{s.enabled ? 'Disable' : 'Enable'}</Action>
                      <Action kind="danger" label={`Delete ${label(s)}`} confirm={`Delete the tunnel on ${label(s)}? Nothing listens on the port afterwards.`} done={`Tunnel ${label(s)} deleted.`}
                        run={async () => { await api('DELETE', `/api/tunnels/${s.id}`); await reload(); }}>Delete</Action>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      {edited && <EditStream key={edited.id} stream={edited} onSaved={reload} onClose={closeEdit} />}
    </>
  );
}
