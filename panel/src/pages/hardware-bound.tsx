// Moving the admin certificate onto a hardware key (POST /api/certs/admin/upgrade-to-hardware-bound):
// the key makes its own CSR, the panel signs it as CN=admin and revokes every PKCS#12 admin
// certificate at once, the one this browser presents included. There is no way back through the API.
import { useState } from 'preact/hooks';
import { api, type UrlAnswer } from '../api.ts';
import { Submit } from '../components/action.tsx';
import { confirmAction } from '../components/dialogs.tsx';
import { TextArea } from '../components/field.tsx';
import { ErrorText, Note } from '../components/notice.tsx';
import { useForm } from '../form.ts';
import { when } from '../format.ts';
import { saveFile } from '../save-file.ts';

export type Upgraded = UrlAnswer<'POST', '/api/certs/admin/upgrade-to-hardware-bound'>;

const CONFIRM = 'Bind the admin certificate to the hardware key? Every PKCS#12 admin certificate is revoked at once, the one this browser uses included, '
  + 'and rotation and P12 downloads stop for good. Keep this page open until you have saved the new certificate.';

const pem = (text: string) => new Blob([text], { type: 'application/x-pem-file' });

function Result({ upgraded }: { upgraded: Upgraded }) {
  return (
    <>
      <Note kind="warn">The admin certificate is now hardware-bound (serial {upgraded.serial}, expires {when(upgraded.expiresAt)}). Every PKCS#12 admin certificate is revoked: save the new certificate, import it onto the key, then open the panel with the key.</Note>
      <div class="row">
        <button type="button" class="btn btn-primary" onClick={() => saveFile(pem(upgraded.cert), 'admin.crt')}>Download the admin certificate (admin.crt)</button>
        <button type="button" class="btn" onClick={() => saveFile(pem(upgraded.caCert), 'relay-ca.crt')}>Download the CA certificate</button>
      </div>
      <p>For a YubiKey: <code>ykman piv certificates import 9a admin.crt</code>.</p>
    </>
  );
}

export function HardwareBound({ onUpgraded }: { onUpgraded(upgraded: Upgraded): void }) {
  const form = useForm({ csr: '' });
  const [upgraded, setUpgraded] = useState<Upgraded>();
  return (
    <section class="card" aria-labelledby="hardware-title">
      <h2 id="hardware-title">Hardware-bound admin certificate</h2>
      {upgraded ? <Result upgraded={upgraded} /> : (
        <form onSubmit={(e) => { e.preventDefault(); void form.submit(async () => {
          if (!(await confirmAction(CONFIRM))) return;
          const answer = await api('POST', '/api/certs/admin/upgrade-to-hardware-bound', { csr: form.values.csr.trim() });
          setUpgraded(answer);
          onUpgraded(answer);
        }); }}>
          <p>Replace the PKCS#12 admin certificate with one whose key never leaves a hardware key (a YubiKey, a smart card, a TPM). The key makes a certificate signing request; the panel signs it as the admin.</p>
          <p>For a YubiKey: <code>ykman piv keys generate --algorithm ECCP256 9a pub.pem</code>, then <code>ykman piv certificates request --subject CN=admin 9a pub.pem admin.csr</code>.</p>
          <ErrorText message={form.error} />
          <TextArea label="Certificate signing request (PEM)" value={form.values.csr} onInput={(v) => form.set('csr', v)} error={form.fieldErrors.csr}
            hint="-----BEGIN CERTIFICATE REQUEST----- … -----END CERTIFICATE REQUEST-----" required />
          <Submit busy={form.busy}>Bind to the hardware key</Submit>
        </form>
      )}
    </section>
  );
}
