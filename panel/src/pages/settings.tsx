import { useRef, useState } from 'preact/hooks';
import { api, type UrlAnswer } from '../api.ts';
import { Action, Submit } from '../components/action.tsx';
import { Field } from '../components/field.tsx';
import { ErrorText, Loading, Note, Unavailable } from '../components/notice.tsx';
import { Copyable, QrCode } from '../components/secret.tsx';
import { useForm } from '../form.ts';
import { useResource } from '../resource.ts';
import { Backup } from './backup.tsx';
import { CertificateMode } from './certificate-mode.tsx';

/** POST /api/settings/2fa/setup's answer (Portlama's names). */
type Setup = UrlAnswer<'POST', '/api/settings/2fa/setup'>;

function CodeForm({ action, label, onDone }: { action: 'confirm' | 'disable'; label: string; onDone(): Promise<void> }) {
  const form = useForm({ code: '' });
  return (
    <form onSubmit={(e) => { e.preventDefault(); void form.submit(async () => {
      await api('POST', `/api/settings/2fa/${action}`, { code: form.values.code.trim() });
      form.reset();
      await onDone();
    }); }}>
      <ErrorText message={form.error} />
      <Field label={`${label}: 6-digit code`} value={form.values.code} onInput={(v) => form.set('code', v)} error={form.fieldErrors.code} inputMode="numeric" autoComplete="one-time-code" required />
      <Submit busy={form.busy}>{label}</Submit>
    </form>
  );
}

function TwoFactor() {
  const status = useResource('/api/settings/2fa');
  const [setup, setSetup] = useState<Setup>();
  /** holds the button that opened the setup: a cancel gives it the focus back */
  const opener = useRef<HTMLSpanElement>(null);
  async function cancelSetup() {
    // the server drops the pending secret, so the key shown can never be confirmed later
    await api('POST', '/api/settings/2fa/cancel');
    setSetup(undefined);
    opener.current?.querySelector('button')?.focus();
    await status.reload();
  }
  if (status.unavailable) return <section class="card"><h2>Two-factor authentication for admins</h2><Unavailable feature="Admin two-factor authentication" /></section>;
  return (
    <>
      <section class="card" aria-labelledby="twofa-title">
        <h2 id="twofa-title">Two-factor authentication for admins</h2>
        <ErrorText message={status.error} />
        {!status.data ? <Loading /> : status.data.enabled ? (
          <>
            <Note kind="ok">Two-factor authentication is on. The IP-address panel is off while it is on.</Note>
            <CodeForm action="disable" label="Turn off" onDone={status.reload} />
          </>
        ) : (
          <>
            <p>Adds a 6-digit code from an authenticator app to your client certificate. Turning it on disables the IP-address panel.</p>
            <span ref={opener}><Action kind="primary" run={async () => setSetup(await api('POST', '/api/settings/2fa/setup'))}>{setup ? 'Start again' : 'Set up'}</Action></span>
            {setup && (
              <>
                <Note kind="warn">Scan the code with your authenticator app, then confirm with a code from it.</Note>
                <QrCode text={setup.uri} label="Admin TOTP QR code" />
                <Copyable label="Secret key" text={setup.manualKey} />
                <CodeForm action="confirm" label="Confirm" onDone={async () => { setSetup(undefined); await status.reload(); }} />
                <Action label="Cancel the setup" run={cancelSetup}>Cancel</Action>
              </>
            )}
          </>
        )}
      </section>
    </>
  );
}

export function SettingsPage() {
  return (
    <>
      <h1>Settings</h1>
      <TwoFactor />
      <CertificateMode />
      <Backup />
      <section class="card" aria-labelledby="machine-title">
        <h2 id="machine-title">For scripts and monitoring</h2>
        <p>Both need the admin client certificate, like the panel.</p>
        <ul>
          <li><a href="/api/openapi.json" target="_blank" rel="noopener">API description (OpenAPI 3.1)</a>: every route with its parameters, answers and access rules.</li>
          <li><a href="/metrics" target="_blank" rel="noopener">Metrics (Prometheus text format)</a>: the address to scrape.</li>
          <li><a href="/alerts">Alerts</a>: webhooks told when a tunnel is down, a certificate needs attention, a service stops, the disk fills or an agent is revoked.</li>
        </ul>
      </section>
    </>
  );
}
