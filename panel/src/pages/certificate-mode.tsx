// The certificate mode: one certificate per name (HTTP-01) or one wildcard certificate for the
// domain through a DNS provider (DNS-01). Shown in Settings and offered by the onboarding wizard.
// Credentials are sent once and never shown again: the server answers only which keys are set.
import { api, type UrlAnswer, type UrlBody } from '../api.ts';
import { Submit } from '../components/action.tsx';
import { Field, Select, TextArea } from '../components/field.tsx';
import { ErrorText, Loading, Note, Unavailable } from '../components/notice.tsx';
import { useForm } from '../form.ts';
import { useResource } from '../resource.ts';

type View = UrlAnswer<'GET', '/api/settings/certificates'>;
type Provider = View['providers'][number]['name'];
type Update = UrlBody<'PUT', '/api/settings/certificates'>;

/** Keys typed as text; every other credential is a secret, typed as a password. */
const PLAIN_KEYS = new Set(['server', 'port', 'name', 'algorithm', 'endpoint', 'accessKeyId']);
const NUMBER_KEYS = new Set(['port']);

function ModeForm({ view, onSaved }: { view: View; onSaved(): Promise<void> }) {
  const form = useForm({
    mode: view.mode,
    provider: (view.provider ?? 'rfc2136') as Provider,
    propagation: view.propagationSeconds === null ? '' : String(view.propagationSeconds),
    credentials: {} as Record<string, string>,
  });
  const keys = view.providers.find((p) => p.name === form.values.provider)?.credentialKeys ?? [];
  const pkg = view.providers.find((p) => p.name === form.values.provider)?.package;
  const setCredential = (key: string, value: string) => form.set('credentials', { ...form.values.credentials, [key]: value });
  const body = (): Update => {
    if (form.values.mode === 'per-name') return { mode: 'per-name' };
    const credentials: Record<string, string | number> = {};
    for (const key of keys) {
      const value = form.values.credentials[key]?.trim();
      if (value) credentials[key] = NUMBER_KEYS.has(key) ? Number(value) : value;
    }
    const propagation = form.values.propagation.trim();
    // the server checks the credentials' shape for the chosen provider
    return { mode: 'wildcard', provider: form.values.provider, credentials, ...(propagation ? { propagationSeconds: Number(propagation) } : {}) } as Update;
  };
  return (
    <form onSubmit={(e) => { e.preventDefault(); void form.submit(async () => {
      await api('PUT', '/api/settings/certificates', body());
      form.set('credentials', {});
      await onSaved();
    }, form.values.mode === 'wildcard' ? 'Wildcard certificate issued' : 'One certificate per name'); }}>
      <ErrorText message={form.error} />
      <Select label="Certificates" value={form.values.mode} onChange={(v) => form.set('mode', v)}
        options={[{ value: 'per-name', label: 'One per name (HTTP-01)' }, { value: 'wildcard', label: 'One wildcard for the domain (DNS-01)' }]} />
      {form.values.mode === 'wildcard' && (
        <>
          <Select label="DNS provider" value={form.values.provider} onChange={(v) => form.set('provider', v)} options={view.providers.map((p) => p.name)} />
          <p class="hint">Installs {pkg}; the credentials are stored readable by the panel only, are left out of backups and are never shown again.</p>
          {keys.map((key) => key === 'serviceAccountJson'
            ? <TextArea key={key} label="Service account key (JSON)" value={form.values.credentials[key] ?? ''} onInput={(v) => setCredential(key, v)} error={form.fieldErrors[`credentials.${key}`]} />
            : <Field key={key} label={key} value={form.values.credentials[key] ?? ''} onInput={(v) => setCredential(key, v)} error={form.fieldErrors[`credentials.${key}`]}
                type={PLAIN_KEYS.has(key) ? 'text' : 'password'} inputMode={NUMBER_KEYS.has(key) ? 'numeric' : undefined} autoComplete="off" />)}
          <Field label="Propagation seconds (optional)" value={form.values.propagation} onInput={(v) => form.set('propagation', v)} inputMode="numeric"
            error={form.fieldErrors.propagationSeconds} hint="How long certbot waits after the DNS change; the plugin's default when empty." />
        </>
      )}
      <Submit busy={form.busy}>Save</Submit>
    </form>
  );
}

export function CertificateMode() {
  const view = useResource('/api/settings/certificates');
  return (
    <section class="card" aria-labelledby="certmode-title">
      <h2 id="certmode-title">Certificates</h2>
      {view.unavailable ? <Unavailable feature="The certificate mode" /> : (
        <>
          <ErrorText message={view.error} />
          {!view.data ? <Loading /> : (
            <>
              <Note kind={view.data.mode === 'wildcard' ? 'ok' : 'info'}>
                {view.data.mode === 'wildcard'
                  ? `One wildcard certificate for ${view.data.lineage} through ${view.data.provider} (keys set: ${view.data.credentialsSet.join(', ')}). New tunnels and sites under it need no issuance.`
                  : 'Each tunnel and site gets its own certificate through HTTP-01 as it is created.'}
              </Note>
              <ModeForm view={view.data} onSaved={view.reload} />
            </>
          )}
        </>
      )}
    </section>
  );
}
