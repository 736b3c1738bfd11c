// Plugins: install, enable, disable, delete; an enabled plugin's panel.js runs in its own page.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Action, Submit } from '../components/action.tsx';
import { Field } from '../components/field.tsx';
import { ErrorText, Loading, Note, Unavailable } from '../components/notice.tsx';
import { Badge, Table } from '../components/table.tsx';
import { useForm } from '../form.ts';
import { useResource } from '../resource.ts';
import { AllowScopeOffer, PluginScopesCard, refusedScope } from './plugin-scopes.tsx';

/** The fields of the server's plugin record (lib/state/schemas.ts PluginRecord) this page uses. */

const enc = encodeURIComponent;

/** The client router keeps same-page links in the app, so the jump to the scopes card is done here. */
function toScopes(event: MouseEvent): void {
  event.preventDefault();
  document.getElementById('plugin-scopes')?.scrollIntoView({ block: 'start' });
  document.querySelector<HTMLInputElement>('#plugin-scopes input')?.focus();
}

export function PluginsPage() {
  const list = useResource('/api/plugins');
  const form = useForm({ spec: '' });
  const settings = useResource('/api/plugins/settings');
  const [error, setError] = useState<string>();
  if (list.unavailable) return <><h1>Plugins</h1><Unavailable feature="Plugins" /></>;
  const act = (send: () => Promise<unknown>) => async () => { setError(undefined); await send(); await list.reload(); };
  return (
    <>
      <h1>Plugins</h1>
      <p>Plugins of this panel. To install plugins on agents, see <a href="/plugins/push-install">Push install</a>.</p>
      <form class="card" aria-labelledby="install-title" onSubmit={(e) => { e.preventDefault(); void form.submit(async () => {
        const spec = form.values.spec.trim();
        await api('POST', '/api/plugins/install', { spec });
        form.reset();
        await list.reload();
        return spec;
      }, (spec) => `Plugin ${spec} installed.`); }}>
        <h2 id="install-title">Install a plugin</h2>
        <ErrorText message={form.error} />
        <AllowScopeOffer scope={refusedScope(form.error)} settings={settings} />
        <Field label="Package" value={form.values.spec} onInput={(v) => form.set('spec', v)} error={form.fieldErrors.spec}
          hint={<>An npm name under an <a href="#plugin-scopes" onClick={toScopes}>allowed scope</a>, or a file: tarball</>} required />
        <Submit busy={form.busy}>Install</Submit>
      </form>
      <section class="card" aria-labelledby="plugins-title">
        <h2 id="plugins-title">Installed</h2>
        <ErrorText message={list.error ?? error} />
        {!list.data ? <Loading /> : (
          <Table head={['Plugin', 'Version', 'Capabilities', 'State', 'Actions']} empty="No plugins installed. Install one above: an npm package under a scope this panel allows, or a file: path to a .tgz tarball."
            rows={list.data.plugins.map((p) => {
              const enabled = p.status === 'enabled';
              return [
                <>{enabled ? <a href={`/plugins/${enc(p.name)}`}>{p.displayName}</a> : p.displayName}{p.description && <small class="muted"> {p.description}</small>}</>,
                p.version, p.capabilities.join(', ') || '—', <Badge status={p.status} />,
                <span class="actions">
                  <Action label={`${enabled ? 'Disable' : 'Enable'} ${p.name}`} onError={setError} done={`Plugin ${p.name} ${enabled ? 'disabled' : 'enabled'}.`}
                    run={act(() => api('POST', `/api/plugins/${enc(p.name)}/${enabled ? 'disable' : 'enable'}`))}>{enabled ? 'Disable' : 'Enable'}</Action>
                  <Action kind="danger" label={`Delete ${p.name}`} onError={setError} confirm={`Delete the plugin ${p.name} and its files?`} done={`Plugin ${p.name} deleted.`}
                    run={act(() => api('DELETE', `/api/plugins/${enc(p.name)}`))}>Delete</Action>
                </span>,
              ];
            })} />
        )}
      </section>
      <PluginScopesCard settings={settings} />
    </>
  );
}

/**
 * A plugin's own page: its record first (a disabled or deleted plugin shows why, not a stale
 * module), then /api/<name>/panel.js as an ES module, whose `mount(element, {api})` renders into
 * the page and may return a cleanup function (README "Writing a plugin"). The URL carries the
 * version and enable time: the browser keeps a module per URL for the life of the document, so an
 * update or a re-enable loads the new bundle.
 */
export function PluginPage({ name }: { name: string }) {
  const record = useResource(`/api/plugins/${enc(name)}`);
  const plugin = record.data;
  const bundle = plugin?.status === 'enabled' ? `/api/${enc(name)}/panel.js?v=${enc(`${plugin.version}-${plugin.enabledAt ?? ''}`)}` : null;
  return (
    <>
      <h1>Plugin: {plugin?.displayName ?? name}</h1>
      <ErrorText message={record.error} />
      {!plugin ? (!record.error && <Loading />)
        : bundle ? <PluginPanel name={name} url={bundle} />
        : <Note>The plugin {name} is disabled. Enable it on the <a href="/plugins">Plugins</a> page to use its panel.</Note>}
    </>
  );
}

function PluginPanel({ name, url }: { name: string; url: string }) {
  const host = useRef<HTMLDivElement>(null);
  const [error, setError] = useState<string>();
  useEffect(() => {
    let cleanup: unknown;
    let alive = true;
    setError(undefined);
    import(/* @vite-ignore */ url).then(
      (mod) => {
        if (!alive || !host.current) return;
        if (typeof mod.mount !== 'function') return setError(`The panel of plugin ${name} exports no mount function`);
        cleanup = mod.mount(host.current, { api });
      },
      () => { if (alive) setError(`The panel of plugin ${name} could not be loaded`); },
    );
    return () => { alive = false; if (typeof cleanup === 'function') cleanup(); };
  }, [name, url]);
  return (
    <>
      <ErrorText message={error} />
      <div ref={host} class="plugin-host" />
    </>
  );
}
