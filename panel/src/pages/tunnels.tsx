import { useMemo, useRef, useState } from 'preact/hooks';
import { api, describe, getJsonVariant, withQuery, type GetAnswer, type UrlJsonVariant } from '../api.ts';
import { Action, Submit } from '../components/action.tsx';
import { Field } from '../components/field.tsx';
import { ListControls, Pager, useListView } from '../components/list-controls.tsx';
import { HeadCell } from '../components/table.tsx';
import { rememberFocus } from '../components/focus-return.ts';
import { TunnelSettings } from '../components/tunnel-settings.tsx';
import { ErrorText, Loading, Unavailable } from '../components/notice.tsx';
import { Copyable } from '../components/secret.tsx';
import { numberField, useForm } from '../form.ts';
import { when } from '../format.ts';
import { useResource } from '../resource.ts';
import { ClientBadge, TrafficCell } from '../components/tunnel-state.tsx';
import { StreamTunnels } from '../components/stream-tunnels.tsx';
import { useTunnelStatus, type TunnelStatus } from '../tunnel-status.ts';
import type { ListSpec } from '../list-view.ts';
import { publicUrl } from '../public-links.ts';

type Tunnel = GetAnswer<'/api/tunnels'>['tunnels'][number];
type AgentConfig = GetAnswer<'/api/tunnels/agent-config'>;

function CreateTunnel({ onCreated }: { onCreated(): Promise<void> }) {
  const form = useForm({ subdomain: '', port: '', description: '' });
  return (
    <form class="card" aria-labelledby="new-tunnel" onSubmit={(e) => { e.preventDefault(); void form.submit(async () => {
      const made = await api('POST', '/api/tunnels', { subdomain: form.values.subdomain.trim(), port: numberField(form.values.port), description: form.values.description });
      form.reset();
      await onCreated();
      return made.tunnel;
    }, (t) => `Tunnel ${'fqdn' in t ? t.fqdn : `${t.protocol.toUpperCase()} ${t.publicPort}`} created.`); }}>
      <h2 id="new-tunnel">New tunnel</h2>
      <ErrorText message={form.error} />
      <div class="grid">
        <Field label="Subdomain" value={form.values.subdomain} onInput={(v) => form.set('subdomain', v)} error={form.fieldErrors.subdomain} required />
        <Field label="Local port" value={form.values.port} onInput={(v) => form.set('port', v)} error={form.fieldErrors.port} inputMode="numeric" hint="1024 to 65535, on the client machine" required />
        <Field label="Description" value={form.values.description} onInput={(v) => form.set('description', v)} error={form.fieldErrors.description} />
      </div>
      <Submit busy={form.busy}>Create tunnel</Submit>
    </form>
  );
}

/**
 * The client's command line pinning the server: chisel's options go before the server URL, so
 * `--fingerprint` follows `client`; with it the client refuses any other host key, which
 * `--tls-skip-verify` alone would accept.
 */
function pinnedCommand(chiselArgs: string[], fingerprint: string | undefined): string {
  const [verb, ...rest] = chiselArgs;
  return ['chisel', verb, ...(fingerprint ? ['--fingerprint', fingerprint] : []), ...rest].join(' ');
}

function AgentSetup() {
  const [config, setConfig] = useState<AgentConfig>();
  const [plist, setPlist] = useState<UrlJsonVariant<'GET', '/api/tunnels/mac-plist'>>();
  const [error, setError] = useState<string>();
  async function load() {
    setError(undefined);
    try {
      const [c, p] = await Promise.all([api('GET', '/api/tunnels/agent-config'), getJsonVariant(withQuery('GET', '/api/tunnels/mac-plist', { format: 'json' }))]);
      setConfig(c);
      setPlist(p);
    } catch (e) {
      setError(describe(e));
    }
  }
  return (
    <section class="card" aria-labelledby="agent-setup">
      <h2 id="agent-setup">Tunnel client setup</h2>
      <p>The client machine runs one chisel client per tunnel, with that tunnel's command; enabled tunnels only. One client holding every tunnel (the single argument list) loses all of them whenever one is disabled or deleted, until it is restarted with the new list.</p>
      <button type="button" class="btn" onClick={load}>{config ? 'Refresh client setup' : 'Show client setup'}</button>
      <ErrorText message={error} />
      {config && (
        <>
          {config.env && Object.entries(config.env).map(([k, v]) => <Copyable key={k} label={`Environment ${k}`} text={`${k}=${v}`} />)}
          {config.fingerprint && (
            <>
              <h3>Server fingerprint</h3>
              <p class="muted">The tunnel server's host key, the same at every restart: a client given it connects to this server only.</p>
              <Copyable label="Server fingerprint" text={config.fingerprint} />
            </>
          )}
          <h3>Client commands, one per tunnel</h3>
          {config.clients.length === 0 ? <p class="muted">No enabled tunnel.</p> : config.clients.map((c) => (
            <Copyable key={c.port} label={`Client command for ${c.subdomain}`} text={pinnedCommand(c.chiselArgs, config.fingerprint)} />
          ))}
          <h3>chisel arguments, all tunnels in one client</h3>
          <Copyable label="chisel arguments" text={config.chiselArgs.join(' ')} />
          <p class="muted">Server {config.chiselServerUrl}; {config.tunnels.length} enabled tunnel(s).</p>
        </>
      )}
      {plist && (
        <>
          <h3>macOS (launchd)</h3>
          <p class="muted">The plist runs one client with every tunnel: after a tunnel is disabled or deleted, download and load it again, or its other tunnels stay down.</p>
          <p><a class="btn" href="/api/tunnels/mac-plist" download>Download the plist</a></p>
          <dl class="instructions">
            {Object.entries(plist.instructions).map(([k, v]) => <div key={k}><dt>{k}</dt><dd><Copyable label={`${k} instruction`} text={v} /></dd></div>)}
          </dl>
        </>
      )}
    </section>
  );
}

const TUNNEL_STATES = [
  { value: 'enabled', label: 'enabled' }, { value: 'disabled', label: 'disabled' },
  { value: 'connected', label: 'client connected' }, { value: 'down', label: 'client down' },
];

/** The list's search, states and sorts; the client's state comes from the live status. */
function tunnelSpec(statusOf: (id: string) => TunnelStatus | undefined): ListSpec<Tunnel> {
  return {
    key: (t) => t.id,
    text: (t) => [t.subdomain, t.fqdn, t.port, t.description],
    states: {
      enabled: (t) => t.enabled,
      disabled: (t) => !t.enabled,
      connected: (t) => statusOf(t.id)?.connected === true,
      // as the dashboard counts it: enabled, and its client not connected
      down: (t) => t.enabled && statusOf(t.id)?.connected !== true,
    },
    sorts: { address: (t) => t.fqdn, port: (t) => t.port, created: (t) => t.createdAt },
  };
}

export function TunnelsPage() {
  const list = useResource('/api/tunnels');
  const status = useTunnelStatus();
  const statuses = useMemo(() => new Map(status.data?.tunnels.map((x) => [x.id, x])), [status.data]);
  const statusOf = (id: string) => statuses.get(id);
  const spec = useMemo(() => tunnelSpec((id) => statuses.get(id)), [statuses]);
  const view = useListView(list.data?.tunnels, spec);
  // the tunnel being edited, and the Edit button's place, where focus goes back when the panel closes
  const [editing, setEditing] = useState<string>();
  const focusBack = useRef<(() => void) | undefined>(undefined);
  const openEdit = (id: string) => { focusBack.current = rememberFocus(); setEditing(id); };
  const closeEdit = () => { setEditing(undefined); focusBack.current?.(); };
  const edited = list.data?.tunnels.find((t) => t.id === editing);
  if (list.unavailable) return <><h1>Tunnels</h1><Unavailable feature="Tunnels" /></>;
  return (
    <>
      <h1>Tunnels</h1>
      <CreateTunnel onCreated={list.reload} />
      <section class="card" aria-labelledby="tunnel-list">
        <h2 id="tunnel-list">Tunnels</h2>
        <ErrorText message={list.error} />
        {!list.data ? <Loading /> : list.data.tunnels.length === 0 ? <p class="muted">No tunnels yet. Create one above: a subdomain, and the local port of the app on the client machine; then run the client command shown under "Tunnel client setup".</p> : (<>
          <ListControls view={view} noun="tunnels" states={TUNNEL_STATES} />
          {view.matched === 0 ? <p class="muted">No tunnel matches the search and state.</p> : <div class="table-wrap">
            <table>
              <thead><tr>{[view.sortHead('Address', 'address'), view.sortHead('Port', 'port'), 'Description', 'State', 'Client', 'Last hour', view.sortHead('Created', 'created'), 'Actions']
                .map((h) => <HeadCell key={typeof h === 'string' ? h : h.label} head={h} />)}</tr></thead>
              <tbody>
                {view.rows.map((t) => (
                  <tr key={t.id}>
                    <th scope="row"><a href={`/tunnels/${encodeURIComponent(t.id)}`}>{t.subdomain}</a> <small><a href={publicUrl(t.fqdn)}>{t.fqdn}</a></small></th>
                    <td>{t.port}</td>
                    <td>{t.description || '—'}</td>
                    <td><span class={`badge ${t.enabled ? 'badge-active' : 'badge-inactive'}`}>{t.enabled ? 'enabled' : 'disabled'}</span></td>
                    <td><ClientBadge status={statusOf(t.id)} /></td>
                    <td><TrafficCell status={statusOf(t.id)} /></td>
                    <td>{when(t.createdAt)}</td>
                    <td class="actions">
                      <button type="button" class="btn" aria-label={`Edit ${t.subdomain}`} onClick={() => openEdit(t.id)}>Edit</button>
                      <Action label={`${t.enabled ? 'Disable' : 'Enable'} ${t.subdomain}`} done={`Tunnel ${t.fqdn} ${t.enabled ? 'disabled' : 'enabled'}.`}
                        run={async () => { await api('PATCH', `/api/tunnels/${t.id}`, { enabled: !t.enabled }); await Promise.all([list.reload(), status.reload()]); }}>{t.enabled ? 'Disable' : 'Enable'}</Action>
                      <Action kind="danger" label={`Delete ${t.subdomain}`} confirm={`Delete the tunnel ${t.fqdn}? Its address stops working.`} done={`Tunnel ${t.fqdn} deleted.`}
                        run={async () => { await api('DELETE', `/api/tunnels/${t.id}`); await list.reload(); }}>Delete</Action>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>}
          <Pager view={view} noun="tunnels" />
        </>)}
      </section>
      {edited && <TunnelSettings key={edited.id} tunnel={edited} onSaved={list.reload} onClose={closeEdit} />}
      <StreamTunnels />
      <AgentSetup />
    </>
  );
}
