// Plugins: install, enable, disable, delete; an enabled plugin's panel.js runs in its own page.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Action, Submit } from '../components/action.tsx';
import { Field } from '../components/field.tsx';
import { ErrorText, Loading, Unavailable } from '../components/notice.tsx';
import { Badge, Table } from '../components/table.tsx';
import { useForm } from '../form.ts';
import { useResource } from '../resource.ts';

interface Plugin { name: string; displayName?: string; version?: string; enabled?: boolean; status?: string; capabilities?: string[] }

const enc = encodeURIComponent;
const isEnabled = (p: Plugin) => p.enabled ?? p.status === 'enabled';

export function PluginsPage() {
  const list = useResource<{ plugins: Plugin[] }>('/api/plugins');
  const form = useForm({ spec: '' });
  const [error, setError] = useState<string>();
  if (list.unavailable) return <><h1>Plugins</h1><Unavailable feature="Plugins" /></>;
  return (
    <>
      <h1>Plugins</h1>
      <form class="card" aria-labelledby="install-title" onSubmit={(e) => { e.preventDefault(); void form.submit(async () => {
        await api('POST', '/api/plugins/install', { spec: form.values.spec.trim() });
        form.reset();
        await list.reload();
      }); }}>
        <h2 id="install-title">Install a plugin</h2>
        <ErrorText message={form.error} />
        <Field label="Package" value={form.values.spec} onInput={(v) => form.set('spec', v)} error={form.fieldErrors.spec} hint="An npm name under an allowed scope, or a file: tarball" required />
        <Submit busy={form.busy}>Install</Submit>
      </form>
      <section class="card" aria-labelledby="plugins-title">
        <h2 id="plugins-title">Installed</h2>
        <ErrorText message={list.error ?? error} />
        {!list.data ? <Loading /> : (
          <Table head={['Plugin', 'Version', 'State', 'Actions']} empty="No plugins installed."
            rows={list.data.plugins.map((p) => [
              isEnabled(p) ? <a href={`/plugins/${enc(p.name)}`}>{p.displayName ?? p.name}</a> : p.displayName ?? p.name,
              p.version ?? '—', <Badge status={isEnabled(p) ? 'enabled' : 'disabled'} />,
              <span class="actions">
                <Action label={`${isEnabled(p) ? 'Disable' : 'Enable'} ${p.name}`} onError={setError}
                  run={async () => { await api('POST', `/api/plugins/${enc(p.name)}/${isEnabled(p) ? 'disable' : 'enable'}`); await list.reload(); }}>{isEnabled(p) ? 'Disable' : 'Enable'}</Action>
                <Action kind="danger" label={`Delete ${p.name}`} onError={setError} confirm={`Delete the plugin ${p.name} and its files?`}
                  run={async () => { await api('DELETE', `/api/plugins/${enc(p.name)}`); await list.reload(); }}>Delete</Action>
              </span>,
            ])} />
        )}
      </section>
    </>
  );
}

/**
 * Loads /api/<name>/panel.js as a module. The module may export `mount(element, {api})` (and
 * return a cleanup function); the panel passes its request helper so the plugin gets the 2FA
 * prompt and progress for free.
 */
export function PluginPage({ name }: { name: string }) {
  const host = useRef<HTMLDivElement>(null);
  const [error, setError] = useState<string>();
  useEffect(() => {
    let cleanup: unknown;
    let alive = true;
    import(/* @vite-ignore */ `/api/${enc(name)}/panel.js`).then(
      (mod) => { if (alive && host.current && typeof mod.mount === 'function') cleanup = mod.mount(host.current, { api }); },
      () => { if (alive) setError(`The panel of plugin ${name} could not be loaded (is it installed and enabled?)`); },
    );
    return () => { alive = false; if (typeof cleanup === 'function') cleanup(); };
  }, [name]);
  return (
    <>
      <h1>Plugin: {name}</h1>
      <ErrorText message={error} />
      <div ref={host} class="plugin-host" />
    </>
  );
}
