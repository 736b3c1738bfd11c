import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import type { TestApp } from '../../../lib/testing.ts';
import { pkiSuite } from '../../helpers/pki-suites.ts';
import { enrollmentApp, newEnrollmentToken, enrollWith } from './cert-apps.ts';
import { makeCsr } from '../../helpers/csr.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';
import { serve } from '../../helpers/http-server.ts';

let t: TestApp;
let clock: ManualClock;
async function setUp(pki: 'fake' | 'openssl'): Promise<void> {
  clock = new ManualClock(Date.now());
  t = await enrollmentApp(pki, clock);
}

// on the fake PKI; what only the openssl CA does with a CSR (checks its signature, signs it with the
// forced subject): test/integration/local/certs/enrollment-openssl.test.ts
const s = pkiSuite('fake', 'agent enrollment: POST /api/certs/agent/enroll and POST /api/enroll', setUp, () => t.close());

const newToken = (body?: Record<string, unknown>) => newEnrollmentToken(t, body);

const enroll = (token: string, csr: string, headers?: Record<string, string>) => enrollWith(t, token, csr, headers);
// One openssl-made CSR serves every case: the fake PKI checks only that it is a PEM certificate
// request (the openssl suite checks signatures), and a CSR per case was a synchronous openssl run each
let sharedCsr: { csr: string } | undefined;
const aCsr = () => (sharedCsr ??= makeCsr());

s('a token is 32 random bytes, expires in 15 minutes by default, and is stored only hashed in a 0600 file', async () => {
  const { token, label, expiresAt } = await newToken();
  assert.is(label, 'laptop-1');
  assert.is(Buffer.from(token, 'base64url').length, 32);
  assert.is(Date.parse(expiresAt) - clock.now(), 15 * 60_000);
  const file = join(t.services.store.dataDir, 'enrollment-tokens.json');
  await t.services.enrollment.flush();
  assert.not.match(await readFile(file, 'utf8'), token);
  assert.is((await stat(file)).mode & 0o777, 0o600);
  const other = await newToken({ label: 'laptop-2' });
  assert.is.not(other.token, token);
});

s('the lifetime is configurable up to 24 hours; beyond is 400', async () => {
  const { expiresAt } = await newToken({ expiresInMinutes: 1440 });
  assert.is(Date.parse(expiresAt) - clock.now(), 24 * 3600_000);
  const r = await t.call('POST', '/api/certs/agent/enroll', { body: { label: 'x', expiresInMinutes: 1441 } });
  assert.is(r.status, 400);
  await t.services.config.update({ certs: { enrollmentTokenMinutes: 60, adminRotationGraceHours: 24 } });
  const configured = await newToken({ label: 'laptop-3' });
  assert.is(Date.parse(configured.expiresAt) - clock.now(), 60 * 60_000);
});

s('token creation checks capabilities live and refuses a label in use', async () => {
  const unknown = await t.call('POST', '/api/certs/agent/enroll', { body: { label: 'x', capabilities: ['chat:send'] } });
  assert.is(unknown.status, 400);
  assert.is(unknown.body.error, "Unknown capability 'chat:send'");
  await t.call('POST', '/api/certs/agent', { body: { label: 'taken' } });
  assert.is((await t.call('POST', '/api/certs/agent/enroll', { body: { label: 'taken' } })).status, 409);
});

s('a second token for a label is 409 while the first is unexpired and unused; once it expires or is spent, a new one is made', async () => {
  await newToken();
  const second = await t.call('POST', '/api/certs/agent/enroll', { body: { label: 'laptop-1' } });
  assert.equal([second.status, second.body.error], [409, "An unexpired enrollment token for 'laptop-1' already exists"]);
  assert.is((await t.call('POST', '/api/certs/agent/enroll', { body: { label: 'laptop-2' } })).status, 201, 'other labels are free');
  clock.advance(15 * 60_000);
  const { token } = await newToken();
  assert.is((await enroll(token, aCsr().csr)).status, 200);
  assert.is((await t.call('DELETE', '/api/certs/agent/laptop-1')).status, 200);
  await newToken();
});

s('an agent enrolled by CSR is listed as hardware-bound and has no bundle to download (404); one issued as a bundle is p12', async () => {
  const { token } = await newToken();
  assert.is((await enroll(token, aCsr().csr)).status, 200);
  assert.is((await t.call('POST', '/api/certs/agent', { body: { label: 'bundled' } })).status, 201);
  const { agents } = (await t.call('GET', '/api/certs/agent')).body as { agents: { label: string; enrollmentMethod: string }[] };
  assert.equal(agents.map((a) => [a.label, a.enrollmentMethod]), [['laptop-1', 'hardware-bound'], ['bundled', 'p12']]);
  assert.is((await t.request('GET', '/api/certs/agent/laptop-1/download')).status, 404);
  assert.is((await t.request('GET', '/api/certs/agent/bundled/download')).status, 200);
});

s('a token naming a site deleted before redemption does not grant a later site of that name', async () => {
  const docs = await t.call('POST', '/api/sites', { body: { name: 'docs', type: 'managed' } });
  assert.is(docs.status, 201, JSON.stringify(docs.body));
  const { token } = await newToken({ allowedSites: ['blog', 'docs'] });
  clock.advance(1000);
  assert.is((await t.call('DELETE', `/api/sites/${docs.body.site.id}`)).status, 200);
  assert.is((await t.call('POST', '/api/sites', { body: { name: 'docs', type: 'managed' } })).status, 201);
  const r = await enroll(token, aCsr().csr);
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.equal(t.services.identities.activeAgent('laptop-1')?.allowedSites, ['blog']);
});

s('unknown, used and expired tokens get one generic 401: Invalid enrollment token', async () => {
  const { csr } = aCsr();
  const unknown = await enroll('x'.repeat(43), csr);
  const { token } = await newToken();
  assert.is((await enroll(token, csr)).status, 200);
  const used = await enroll(token, csr);
  const { token: late } = await newToken({ label: 'laptop-2' });
  clock.advance(15 * 60_000);
  const expired = await enroll(late, csr);
  for (const r of [unknown, used, expired]) {
    assert.is(r.status, 401);
    assert.equal(r.body, { error: 'Invalid enrollment token' });
  }
});

s('20 concurrent enrollments with one token give exactly one certificate', async () => {
  const { token } = await newToken();
  // the token is what the 20 contend for: one CSR serves them all
  const { csr } = aCsr();
  const results = await Promise.all(Array.from({ length: 20 }, (_, i) => enroll(token, csr, { 'x-forwarded-for': `198.51.100.${i}` })));
  const ok = results.filter((r) => r.status === 200);
  assert.is(ok.length, 1, JSON.stringify(results.map((r) => r.status)));
  assert.ok(results.every((r) => r.status === 200 || r.status === 401 || r.status === 429));
  assert.is(t.services.store.agents.value.filter((a) => a.label === 'laptop-1').length, 1);
});

s('enrollment is rate-limited per client address: the 11th try in a minute gets 429', async () => {
  const { csr } = aCsr();
  for (let i = 0; i < 10; i++) assert.is((await enroll(`bad-${i}`, csr)).status, 401);
  const limited = await enroll('bad', csr);
  assert.is(limited.status, 429);
  assert.ok(limited.body.details.retryAfter >= 1 && limited.body.details.retryAfter <= 60, JSON.stringify(limited.body));
  assert.is(limited.response.headers.get('retry-after'), String(limited.body.details.retryAfter));
  clock.advance(60_000);
  assert.is((await enroll('bad', csr)).status, 401);
});

s('the limit is per client address: behind the proxy, another X-Forwarded-For address has its own count', async () => {
  const server = await serve(t.app);
  const { csr } = aCsr();
  try {
    const post = (ip: string) => fetch(`${server.url}/api/enroll`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
      body: JSON.stringify({ token: 'bad', csr }),
    }).then((r) => r.status);
    for (let i = 0; i < 10; i++) assert.is(await post('198.51.100.1'), 401);
    assert.is(await post('198.51.100.1'), 429);
    assert.is(await post('198.51.100.2'), 401);
  } finally {
    await server.close();
  }
});

s('POST /api/enroll needs no certificate; the token never shows in logs', async () => {
  const { token } = await newToken();
  const r = await enroll(token, aCsr().csr);
  assert.is(r.status, 200);
  assert.not.ok(t.services.log.recent(500).some((e) => e.message.includes(token)));
});

s.run();
