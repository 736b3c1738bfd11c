import { mkdir, rename, rmdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { createTestApp, ADMIN_SERIAL, type TestApp } from '../../../lib/testing.ts';
import { pkiSuite } from '../../helpers/pki-suites.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';

let t: TestApp;
let clock: ManualClock;
async function setUp(pki: 'fake' | 'openssl'): Promise<void> {
  clock = new ManualClock(Date.now());
  // on disk: the cases check the documents' files and their modes
  t = await createTestApp({ clock, pki, durable: true });
  await t.completeOnboarding();
}

// on the fake PKI; what only the openssl CA makes (the P12's contents, the CRL's serials, the signed
// CSR's subject): test/integration/local/certs/admin-cert-openssl.test.ts
const s = pkiSuite('fake', 'admin certificate: rotation, one-time download, hardware-bound upgrade', setUp, () => t.close());

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

s('admin-only', async () => {
  await t.addAgent('laptop-1', ['tunnels:read']);
  for (const [method, path, body] of [['POST', '/api/certs/mtls/rotate'], ['GET', '/api/certs/mtls/download'], ['GET', '/api/certs/admin/auth-mode'], ['POST', '/api/certs/admin/upgrade-to-hardware-bound', { csr: 'x' }]] as const) {
    assert.is((await t.call(method, path, { as: { agent: 'laptop-1' }, body })).status, 403, path);
  }
});

s.run();
