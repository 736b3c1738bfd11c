// /api/certs and /api/settings/2fa against the real programs: agent certificates enforced by the
// real nginx mTLS front (the IP panel vhost, with ssl_crl) and the openssl PKI (issue, use the P12,
// drop a capability, revoke — no restart); forced renewal through certbot against pebble; the IP
// panel vhost switched off and on by admin 2FA.
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { Secret, TOTP } from 'otpauth';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestApp, type Caller, type TestApp } from '../../../../lib/testing.ts';
import { serve } from '../../../helpers/http-server.ts';
import { timed } from '../../../helpers/timeout.ts';
import { startInfra, TEST_DOMAIN, type Infra } from '../../../infra/harness.ts';
import { loopbackRequest, type TestResponse } from '../../../infra/http.ts';

const s = suite('certificates and 2FA against real nginx, the openssl PKI, certbot and pebble');
let infra: Infra;
let t: TestApp;
let server: Awaited<ReturnType<typeof serve>>;
let backendHits = 0;
/** The admin the API calls come from: after a rotation has been used, the new certificate. */
let admin: { as: Caller } = { as: 'admin' };

s.before(async () => {
  infra = await startInfra();
  t = await createTestApp({ config: { ip: '127.0.0.1', system: infra.systemConfig() } });
  await t.completeOnboarding();
  const fetchApp = t.app.fetch;
  server = await serve({ ...t.app, fetch: (request: Request) => (backendHits++, fetchApp(request)) } as typeof t.app, infra.ports.panel);
  await t.services.system.proxy.apply([{ op: 'put', spec: { kind: 'ip-panel' }, enabled: true }]);
});

s.after(async () => {
  await server?.close();
  await t?.close();
  await infra?.stop();
});

/** Certificate and key out of the P12, opened with its one-time password (as a browser import would). */
function openP12(p12: Buffer, password: string): { cert: string; key: string } {
  const env = { ...process.env, P: password };
  const cert = execFileSync('openssl', ['pkcs12', '-nokeys', '-clcerts', '-passin', 'env:P'], { input: p12, env }).toString();
  const key = execFileSync('openssl', ['pkcs12', '-nocerts', '-nodes', '-passin', 'env:P'], { input: p12, env }).toString();
  return { cert, key };
}

const describe = (pem: string) => execFileSync('openssl', ['x509', '-noout', '-serial', '-enddate'], { input: pem }).toString();

/** A rotated admin bundle and its password, as the admin would download it. */
async function rotatedAdminBundle(): Promise<[Buffer, string]> {
  const rotated = await t.call('POST', '/api/certs/mtls/rotate', admin);
  assert.is(rotated.status, 200, JSON.stringify(rotated.body));
  const download = await t.request('GET', '/api/certs/mtls/download', admin);
  // its first use through nginx revokes the certificate the test has been calling with
  admin = { as: { dn: 'CN=admin', serial: rotated.body.serial } };
  return [Buffer.from(await download.arrayBuffer()), rotated.body.p12Password];
}

const viaNginx = (path: string, client: { cert: string; key: string }): Promise<TestResponse> =>
  loopbackRequest({ port: infra.ports.ipPanel, host: 'relay-ip-panel.test', path, tls: { rejectUnauthorized: false, ...client } });

s('issue through the API, use through nginx, drop a capability, revoke: each applies to the next request', timed(60_000, async () => {
  const created = await t.call('POST', '/api/certs/agent', { body: { label: 'laptop-1', capabilities: ['tunnels:read', 'system:read'] } });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const download = await t.request('GET', '/api/certs/agent/laptop-1/download');
  const client = openP12(Buffer.from(await download.arrayBuffer()), created.body.p12Password);

  const ok = await viaNginx('/api/tunnels', client);
  assert.is(ok.status, 200, ok.body);
  assert.equal(JSON.parse(ok.body), { tunnels: [] });

  const patched = await t.call('PATCH', '/api/certs/agent/laptop-1/capabilities', { body: { capabilities: ['system:read'] } });
  assert.is(patched.status, 200);
  const denied = await viaNginx('/api/tunnels', client);
  assert.is(denied.status, 403);
  assert.is(JSON.parse(denied.body).error, 'Insufficient certificate capability');

  const revoked = await t.call('DELETE', '/api/certs/agent/laptop-1');
  assert.is(revoked.status, 200, JSON.stringify(revoked.body));
  const hitsAfterRevoke = backendHits;
  const deadline = Date.now() + 2_000;
  let refused: TestResponse | Error | undefined;
  while (Date.now() < deadline) {
    refused = await viaNginx('/api/tunnels', client).catch((e: Error) => e);
    if (refused instanceof Error || [400, 495, 496].includes(refused.status)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.ok(refused instanceof Error || [400, 495, 496].includes(refused!.status), `nginx still let the revoked certificate through: ${JSON.stringify(refused)}`);
  assert.is(backendHits, hitsAfterRevoke, 'nginx refused it before the panel');
  // the app's own check, for a request that reaches it anyway
  const app = await t.call('GET', '/api/tunnels', { as: { agent: 'laptop-1', serial: created.body.serial } });
  assert.is(app.status, 403);
  assert.is(app.body.error, 'Certificate has been revoked');
}));

s('renew: certbot renews the lineage from pebble (a new certificate), nginx reloads; an unknown name 404', timed(120_000, async () => {
  const fqdn = `panel.${TEST_DOMAIN}`;
  await t.services.system.certs.issue(fqdn, `ops@${TEST_DOMAIN}`);
  const listed = await t.call('GET', '/api/certs');
  const entry = listed.body.certs.find((c: { domain: string }) => c.domain === fqdn);
  assert.equal([entry?.type, entry?.name, entry?.domains], ['letsencrypt', fqdn, [fqdn]]);
  assert.ok(entry.daysUntilExpiry > 0 && entry.daysUntilExpiry === entry.daysLeft, `${entry.daysUntilExpiry} days until expiry`);
  const before = describe(await readFile(t.services.system.certs.paths(fqdn).fullchain, 'utf8'));
  const r = await t.call('POST', `/api/certs/${fqdn}/renew`);
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.is(r.body.domain, fqdn);
  assert.ok(Date.parse(r.body.newExpiry) > Date.now());
  const after = describe(await readFile(t.services.system.certs.paths(fqdn).fullchain, 'utf8'));
  assert.is.not(after, before, 'a new certificate was issued');
  assert.equal((await t.call('POST', `/api/certs/nope.${TEST_DOMAIN}/renew`)).body, { error: 'Certificate not found' });
}));

s('2FA on closes the IP panel vhost on nginx; 2FA off opens it again', timed(60_000, async () => {
  const adminClient = openP12(...(await rotatedAdminBundle()));
  assert.is((await viaNginx('/api/settings/2fa', adminClient)).status, 200);
  const setup = await t.call('POST', '/api/settings/2fa/setup', admin);
  const totp = new TOTP({ secret: Secret.fromBase32(setup.body.manualKey), digits: 6, period: 30 });
  const confirm = await t.call('POST', '/api/settings/2fa/confirm', { ...admin, body: { code: totp.generate() } });
  assert.is(confirm.status, 200, JSON.stringify(confirm.body));
  const closed = await viaNginx('/api/settings/2fa', adminClient).then((r) => `status ${r.status}`, (e: NodeJS.ErrnoException) => e.code);
  assert.is(closed, 'ECONNREFUSED');
  const cookie = confirm.response.headers.get('set-cookie')!.split(';')[0]!;
  // one step later, since a code is good only once
  const disable = await t.call('POST', '/api/settings/2fa/disable', { ...admin, body: { code: totp.generate({ timestamp: Date.now() + 30_000 }) }, headers: { cookie } });
  assert.is(disable.status, 200, JSON.stringify(disable.body));
  assert.is((await viaNginx('/api/settings/2fa', adminClient)).status, 200);
}));

s('another agent keeps working after the revocation and the reload', timed(30_000, async () => {
  const created = await t.call('POST', '/api/certs/agent', { ...admin, body: { label: 'laptop-2', capabilities: ['tunnels:read'] } });
  const download = await t.request('GET', '/api/certs/agent/laptop-2/download', admin);
  const client = openP12(Buffer.from(await download.arrayBuffer()), created.body.p12Password);
  assert.is((await viaNginx('/api/tunnels', client)).status, 200);
}));

s.run();
