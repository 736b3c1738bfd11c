import { execFileSync } from 'node:child_process';
import { mkdir, rename, rmdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { ADMIN_SERIAL, createTestApp, type TestApp } from '../../../lib/testing.ts';
import { pkiSuites } from '../../helpers/pki-suites.ts';
import { describeCert, makeCsr } from '../../helpers/csr.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';

let t: TestApp;
let clock: ManualClock;
async function setUp(pki: 'fake' | 'openssl'): Promise<void> {
  clock = new ManualClock(Date.now());
  // on disk: the cases check the documents' files and their modes
  t = await createTestApp({ clock, pki, durable: true });
  await t.completeOnboarding();
}

// `o`: what the openssl CA makes: the P12's contents, the CRL's serials, the signed CSR's subject
const { s, o } = pkiSuites('admin certificate: rotation, one-time download, hardware-bound upgrade', setUp, () => t.close());

const asAdmin = (serial: string) => ({ as: { dn: 'CN=admin', serial } });
const tunnelsStatus = async (serial: string) => (await t.call('GET', '/api/tunnels', asAdmin(serial))).status;
const adminState = async () => (await t.call('GET', '/api/certs')).body.adminCertificate;

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  assert.unreachable(`${what} did not happen`);
}

async function rotate() {
  const r = await t.call('POST', '/api/certs/mtls/rotate');
  assert.is(r.status, 200, JSON.stringify(r.body));
  return r.body as { ok: true; serial: string; expiresAt: string; graceEndsAt: string; p12Password: string; warning: string };
}

s('rotate issues CN=admin with a one-time password; the requester keeps working; both serials show in GET /api/certs', async () => {
  const r = await rotate();
  assert.is(Date.parse(r.graceEndsAt) - clock.now(), 24 * 3600_000);
  assert.ok(r.p12Password.length >= 20);
  assert.is(await tunnelsStatus(ADMIN_SERIAL), 200);
  const state = await adminState();
  assert.equal(
    { mode: state.authMode, serial: state.serial, previous: state.rotation.previousSerial, next: state.rotation.newSerial, status: state.rotation.state },
    { mode: 'p12', serial: r.serial, previous: ADMIN_SERIAL, next: r.serial, status: 'pending' },
  );
  assert.not.match(JSON.stringify(state), r.p12Password);
  assert.is((await stat(join(t.services.store.dataDir, 'admin-cert.json'))).mode & 0o777, 0o600);
});

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

s('a download whose read fails is not the one download: the next try gets the bundle, and of concurrent tries only one', async () => {
  await rotate();
  const bundle = join(t.services.store.dataDir, 'certs', 'admin.p12');
  // a directory where the bundle is: reading it fails (EISDIR) while the bundle waits beside it
  await rename(bundle, `${bundle}.aside`);
  await mkdir(bundle);
  const failed = await t.call('GET', '/api/certs/mtls/download');
  assert.is(failed.status, 500);
  await rmdir(bundle);
  await rename(`${bundle}.aside`, bundle);
  assert.is((await adminState()).bundlePending, true);
  const tries = await Promise.all(Array.from({ length: 5 }, () => t.request('GET', '/api/certs/mtls/download')));
  assert.equal(tries.map((r) => r.status).sort(), [200, 410, 410, 410, 410]);
  assert.is((await adminState()).bundlePending, false);
});

s('the first request with the new certificate revokes the old one', async () => {
  const r = await rotate();
  await t.call('GET', '/api/certs/mtls/download');
  assert.is(await tunnelsStatus(ADMIN_SERIAL), 200);
  assert.is(await tunnelsStatus(r.serial), 200);
  await until('rotation completed', async () => (await t.services.adminCert.describe()).rotation?.state === 'completed');
  assert.is((await t.services.adminCert.describe()).rotation?.completedBy, 'first-use');
  assert.is((await t.call('GET', '/api/tunnels', asAdmin(ADMIN_SERIAL))).body.error, 'Certificate has been revoked');
  assert.is(await tunnelsStatus(r.serial), 200);
});

s('after the grace period (configurable) the old certificate is revoked', async () => {
  await t.services.config.update({ certs: { enrollmentTokenMinutes: 15, adminRotationGraceHours: 2 } });
  const r = await rotate();
  assert.is(Date.parse(r.graceEndsAt) - clock.now(), 2 * 3600_000);
  await t.call('GET', '/api/certs/mtls/download');
  clock.advance(3600_000);
  assert.is(await tunnelsStatus(ADMIN_SERIAL), 200, 'within the grace period');
  clock.advance(3600_000);
  await until('rotation completed', async () => (await t.services.adminCert.describe()).rotation?.state === 'completed');
  assert.is((await t.services.adminCert.describe()).rotation?.completedBy, 'grace-period');
  assert.is(await tunnelsStatus(ADMIN_SERIAL), 403);
});

s('a rotation whose bundle was never downloaded lapses at the grace period: the old certificate stays, the new one is revoked', async () => {
  const r = await rotate();
  clock.advance(24 * 3600_000);
  await until('rotation lapsed', async () => (await t.services.adminCert.describe()).rotation?.state === 'cancelled');
  assert.is(await tunnelsStatus(ADMIN_SERIAL), 200);
  assert.is(await tunnelsStatus(r.serial), 403);
  assert.is((await t.call('GET', '/api/certs/mtls/download')).status, 410);
});

s('a second rotation replaces the pending one: its certificate is revoked, the old one is still the one replaced', async () => {
  const first = await rotate();
  const second = await rotate();
  assert.is(await tunnelsStatus(first.serial), 403);
  assert.is((await adminState()).rotation.previousSerial, ADMIN_SERIAL);
  assert.is(await tunnelsStatus(second.serial), 200);
});

s('three rotations at once: exactly one new certificate stays valid, and the replaced one is still the requester\'s', async () => {
  const results = await Promise.all([1, 2, 3].map(() => rotate()));
  const state = await adminState();
  const valid = [];
  for (const r of results) if ((await tunnelsStatus(r.serial)) === 200) valid.push(r.serial);
  assert.equal(valid, [state.rotation.newSerial]);
  assert.is(state.rotation.previousSerial, ADMIN_SERIAL);
});

o('a failed bundle leaves the rotation untouched and the new certificate revoked', async () => {
  const { sandboxControls } = await import('../../../lib/system/sandbox-system.ts');
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

s('admin-only', async () => {
  await t.addAgent('laptop-1', ['tunnels:read']);
  for (const [method, path, body] of [['POST', '/api/certs/mtls/rotate'], ['GET', '/api/certs/mtls/download'], ['GET', '/api/certs/admin/auth-mode'], ['POST', '/api/certs/admin/upgrade-to-hardware-bound', { csr: 'x' }]] as const) {
    assert.is((await t.call(method, path, { as: { agent: 'laptop-1' }, body })).status, 403, path);
  }
});

s.run();
o.run();
