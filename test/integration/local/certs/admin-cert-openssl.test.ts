import { execFileSync } from 'node:child_process';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { createTestApp, ADMIN_SERIAL, type TestApp } from '../../../../lib/testing.ts';
import { pkiSuite } from '../../../helpers/pki-suites.ts';
import { describeCert, makeCsr } from '../../../helpers/csr.ts';
import { ManualClock } from '../../../helpers/manual-clock.ts';

let t: TestApp;
let clock: ManualClock;
async function setUp(pki: 'fake' | 'openssl'): Promise<void> {
  clock = new ManualClock(Date.now());
  t = await createTestApp({ clock, pki });
  await t.completeOnboarding();
}

// The admin certificate on the openssl CA, for what only it makes: the P12's contents, the CRL's
// serials, the signed CSR's subject (the rest, on the fake PKI: test/unit/certs/admin-cert.test.ts).
const o = pkiSuite('openssl', 'admin certificate: rotation, one-time download, hardware-bound upgrade', setUp, () => t.close());

const asAdmin = (serial: string) => ({ as: { dn: 'CN=admin', serial } });
const tunnelsStatus = async (serial: string) => (await t.call('GET', '/api/tunnels', asAdmin(serial))).status;
const adminState = async () => (await t.call('GET', '/api/certs')).body.adminCertificate;

async function rotate() {
  const r = await t.call('POST', '/api/certs/mtls/rotate');
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body as { ok: true; serial: string; expiresAt: string; graceEndsAt: string; p12Password: string; warning: string };
}

o('the P12 downloads once (0600 until then), opens with the password and holds CN=admin; then 410', async () => {
  assert.is((await t.call('GET', '/api/certs/mtls/download')).status, 404, 'nothing rotated yet');
  const r = await rotate();
  assert.is((await stat(join(t.services.store.dataDir, 'certs', 'admin.p12'))).mode & 0o777, 0o600);
  const download = await t.request('GET', '/api/certs/mtls/download');
  assert.is(download.status, 200);
  assert.is(download.headers.get('content-disposition'), 'attachment; filename="client.p12"');
  const pem = execFileSync('openssl', ['pkcs12', '-nokeys', '-clcerts', '-passin', 'env:P'], { input: Buffer.from(await download.arrayBuffer()), env: { ...process.env, P: r.p12Password } }).toString();
  assert.match(describeCert(pem), 'subject=CN = admin');
  assert.match(describeCert(pem), `serial=${r.serial}`);
  const again = await t.call('GET', '/api/certs/mtls/download');
  assert.is(again.status, 410);
  assert.is(again.body.error, 'The admin certificate bundle was already downloaded');
});

o('a failed bundle leaves the rotation untouched and the new certificate revoked', async () => {
  const { sandboxControls } = await import('../../../../lib/system/sandbox-system.ts');
  sandboxControls(t.services.system).failNext('pki.toPkcs12');
  assert.is((await t.call('POST', '/api/certs/mtls/rotate')).status, 500);
  assert.is((await adminState()).rotation, null);
  const { crlPath } = await t.services.system.pki.ensureCa();
  assert.match(execFileSync('openssl', ['crl', '-in', crlPath, '-noout', '-text']).toString(), 'Serial Number: 1000');
});

o('upgrade to hardware-bound signs the CSR as CN=admin, revokes the P12 certificates; P12 routes then 410', async () => {
  assert.equal((await t.call('GET', '/api/certs/admin/auth-mode')).body, { adminAuthMode: 'p12' });
  const rotated = await rotate();
  const bad = await t.call('POST', '/api/certs/admin/upgrade-to-hardware-bound', { body: { csr: 'nope' } });
  assert.is(bad.status, 400);
  const { csr } = makeCsr('/CN=someone-else');
  const r = await t.call('POST', '/api/certs/admin/upgrade-to-hardware-bound', { body: { csr } });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.is(r.body.adminAuthMode, 'hardware-bound');
  assert.match(describeCert(r.body.cert), 'subject=CN = admin');
  assert.match(r.body.caCert, 'BEGIN CERTIFICATE');
  assert.equal((await t.call('GET', '/api/certs/admin/auth-mode', asAdmin(r.body.serial))).body, { adminAuthMode: 'hardware-bound' });
  for (const serial of [ADMIN_SERIAL, rotated.serial]) assert.is(await tunnelsStatus(serial), 403, serial);
  for (const [method, path] of [['GET', '/api/certs/mtls/download'], ['POST', '/api/certs/mtls/rotate']] as const) {
    const gone = await t.call(method, path, asAdmin(r.body.serial));
    assert.is(gone.status, 410, path);
    assert.is(gone.body.error, 'The admin certificate is hardware-bound: PKCS#12 routes are disabled');
  }
  assert.is((await t.call('POST', '/api/certs/admin/upgrade-to-hardware-bound', { ...asAdmin(r.body.serial), body: { csr } })).status, 409);
});

o.run();
