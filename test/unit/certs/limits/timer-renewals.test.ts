// Renewals made by certbot's timer (outside the panel, as the panel's user) are counted for the
// duplicate-certificate limit and the account's orders, read from certbot's archive at count time;
// the panel's own orders, which the archive holds too, are counted once.
import { mkdir, mkdtemp, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { outsideOrders } from '../../../../lib/certs/limits/outside-orders.ts';
import type { CertLimitsSetting } from '../../../../lib/certs/limits/schema.ts';
import { readArchive } from '../../../../lib/system/certs/archive.ts';
import { createFakeServerCerts } from '../../../../lib/system/pki/fake-pki.ts';
import { certificateNames, createServerCert } from '../../../../lib/system/pki/self-signed.ts';
import { createTestApp, type TestApp } from '../../../../lib/testing.ts';
import { ManualClock } from '../../../helpers/manual-clock.ts';

const DOMAIN = 'relay.example.com';
const FQDN = `app.${DOMAIN}`;
const DAY = 24 * 3600_000;
const SECRET = 'c2VjcmV0LWtleS1mb3ItdGVzdHM=';
const WILDCARD = { mode: 'wildcard', provider: 'rfc2136', credentials: { server: '127.0.0.1', port: 15353, name: 'certbot-key', secret: SECRET }, propagationSeconds: 0 };

async function app(certLimits: CertLimitsSetting) {
  const clock = new ManualClock();
  const t = await createTestApp({ clock, config: { certLimits } });
  await t.completeOnboarding(DOMAIN);
  return { t, clock };
}
type Count = { limit: string; key: string; count: number; nextFreeAt: string | null };
async function countOf(t: TestApp, limit: string, key: string): Promise<Count | undefined> {
  const { body } = await t.call('GET', '/api/certs/limits');
  return (body.counts as Count[]).find((c) => c.limit === limit && c.key === key);
}

const s = suite('certificate limits: the renewal timer\'s certificates');

s('two timer renewals of a tunnel\'s certificate count as duplicates (not as new); the next forced renewal is refused past the limit', async () => {
  const { t, clock } = await app({ duplicatePerNameSet: 3 });
  try {
    const issuedAt = clock.now();
    assert.is((await t.call('POST', '/api/tunnels', { body: { subdomain: 'app', port: 9001 } })).status, 201);
    assert.is((await countOf(t, 'duplicatePerNameSet', FQDN))?.count, 1, 'the panel\'s issuance, in the ledger and the archive, counted once');
    // certbot renew run by the timer: the adapter itself, not the panel's guarded one, so nothing in the ledger
    for (const _ of [1, 2]) {
      clock.jump(DAY);
      await t.services.system.certs.renew(FQDN);
    }
    assert.is(t.services.store.certIssuances.value.length, 1, 'the timer writes nothing the panel keeps');
    const duplicates = await countOf(t, 'duplicatePerNameSet', FQDN);
    assert.equal({ count: duplicates?.count, nextFreeAt: duplicates?.nextFreeAt }, { count: 3, nextFreeAt: new Date(issuedAt + 7 * DAY).toISOString() });
    assert.is((await countOf(t, 'newPerRegisteredDomain', 'example.com'))?.count, 1, 'renewals are exempt from the new-certificate limit');
    assert.is((await countOf(t, 'ordersPerAccount', t.services.config.value.system.acme.server))?.count, 1, 'the latest renewal is an order of the last 3 hours');
    const refused = await t.call('POST', `/api/certs/${FQDN}/renew`);
    assert.equal([refused.status, refused.body.error], [500, 'Certificate renewal failed']);
    assert.match(refused.body.details, new RegExp(`\\(duplicatePerNameSet\\); ${FQDN.replaceAll('.', '\\.')} has 3`));
    // the first one leaves the window: a slot frees
    clock.jump(issuedAt + 7 * DAY - clock.now());
    assert.is((await t.call('POST', `/api/certs/${FQDN}/renew`)).status, 200);
    assert.is((await countOf(t, 'duplicatePerNameSet', FQDN))?.count, 3, 'two timer renewals and the panel\'s renewal');
  } finally {
    await t.close();
  }
});

s('the wildcard lineage: a timer renewal and a forced one are counted under its two names', async () => {
  const { t, clock } = await app({ duplicatePerNameSet: 3 });
  try {
    assert.is((await t.call('PUT', '/api/settings/certificates', { body: WILDCARD })).status, 200);
    clock.jump(DAY);
    await t.services.system.certs.renew(DOMAIN);
    assert.is((await t.call('POST', `/api/certs/${DOMAIN}/renew`)).status, 200);
    assert.equal(t.services.store.certIssuances.value.map((r) => [r.kind, r.names]), [['new', [`*.${DOMAIN}`, DOMAIN]], ['renewal', [`*.${DOMAIN}`, DOMAIN]]]);
    assert.is((await countOf(t, 'duplicatePerNameSet', `*.${DOMAIN},${DOMAIN}`))?.count, 3);
  } finally {
    await t.close();
  }
});

s('a version stored while the panel\'s order of those names is under way is that order, not another', () => {
  const at = Date.parse('2026-11-22T10:00:00Z');
  const order = { at: new Date(at).toISOString(), server: 'acme', names: [FQDN], kind: 'new' as const, outcome: 'issued' as const, failedValidations: [] };
  const version = (seconds: number, renewal = false) => ({ lineage: FQDN, version: 1, names: [FQDN], at: at + seconds * 1000, renewal });
  assert.equal(outsideOrders([version(20)], { recorded: [], underWay: [order] }, 'acme', 180_000), []);
  // recorded at `at`: a version written during its run is its own; one a day later is the timer's
  const outside = outsideOrders([version(-20), version(86_400, true)], { recorded: [order], underWay: [] }, 'acme', 180_000);
  assert.equal(outside.map((o) => [o.at, o.kind]), [[new Date(at + DAY).toISOString(), 'renewal']]);
  // a failed order stored nothing: it accounts for no version
  assert.is(outsideOrders([version(-20)], { recorded: [{ ...order, outcome: 'failed' }], underWay: [] }, 'acme', 180_000).length, 1);
});

s('certbot\'s archive: the versions in the window with their names and times; a renewal is the same names as the version before', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'archive-'));
  try {
    const maker = createFakeServerCerts();
    const now = Date.parse('2026-11-22T00:00:00Z');
    const put = async (lineage: string, version: number, names: string[], at: number) => {
      await mkdir(join(dir, lineage), { recursive: true });
      const fullchain = join(dir, lineage, `cert${version}.pem`);
      await maker.create({ openssl: 'openssl', timeoutMs: 1000, paths: { fullchain, privkey: join(dir, lineage, `privkey${version}.pem`) }, commonName: lineage, subjectAltNames: names.map((n) => `DNS:${n}`), days: 90 });
      await utimes(fullchain, at / 1000, at / 1000);
    };
    await put(FQDN, 1, [FQDN], now - 30 * DAY);
    await put(FQDN, 2, [FQDN], now - 2 * DAY);
    await put(DOMAIN, 1, [DOMAIN], now - 40 * DAY);
    await put(DOMAIN, 2, [DOMAIN, `*.${DOMAIN}`], now - DAY);
    // as certbot leaves them: each directory changed when its last version was added
    await utimes(join(dir, FQDN), (now - 2 * DAY) / 1000, (now - 2 * DAY) / 1000);
    await utimes(join(dir, DOMAIN), (now - DAY) / 1000, (now - DAY) / 1000);
    await put('old.example.com', 1, ['old.example.com'], now - 20 * DAY);
    await utimes(join(dir, 'old.example.com'), (now - 20 * DAY) / 1000, (now - 20 * DAY) / 1000);
    const versions = await readArchive(dir, now - 7 * DAY, (path) => maker.names(path));
    assert.equal(versions.map((v) => [v.lineage, v.version, v.names, v.at - now, v.renewal]), [
      [FQDN, 2, [FQDN], -2 * DAY, true],
      [DOMAIN, 2, [DOMAIN, `*.${DOMAIN}`], -DAY, false],
    ]);
    assert.equal(await readArchive(join(dir, 'none'), 0, (path) => maker.names(path)), [], 'no archive yet: nothing');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

s('a real certificate\'s names are its DNS subject alternative names', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'names-'));
  try {
    const paths = { fullchain: join(dir, 'cert1.pem'), privkey: join(dir, 'privkey1.pem') };
    await createServerCert({ openssl: '/usr/bin/openssl', timeoutMs: 10_000, paths, commonName: DOMAIN, subjectAltNames: [`DNS:${DOMAIN}`, `DNS:*.${DOMAIN}`, 'IP:192.0.2.1'], days: 1 });
    assert.equal(await certificateNames(paths.fullchain), [DOMAIN, `*.${DOMAIN}`]);
    assert.is(await certificateNames(join(dir, 'missing.pem')), null);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

s.run();
