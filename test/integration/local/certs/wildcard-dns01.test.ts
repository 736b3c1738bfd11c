// The wildcard mode end to end with real programs on loopback: bind9 as the zone's authoritative
// server taking RFC 2136 updates, pebble validating DNS-01 (and HTTP-01) against it, certbot with
// Debian's python3-certbot-dns-rfc2136, and nginx serving the result. A wildcard issued through the
// API, a tunnel created with no issuance and served under the wildcard, the lineage renewed the way
// its renewal configuration says, then a switch back to one certificate per name.
import { X509Certificate } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { existsSync } from 'node:fs';
import { chmod, lstat, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestApp } from '../../../../lib/testing.ts';
import { defined } from '../../../helpers/defined.ts';
import { timed, withTimeout } from '../../../helpers/timeout.ts';
import { startInfra, TEST_DOMAIN, type Infra } from '../../../infra/harness.ts';
import { loopbackRequest, type TestResponse } from '../../../infra/http.ts';
import { freePorts } from '../../../infra/ports.ts';
import { waitFor } from '../../../infra/processes.ts';
import { startBindZone, type BindZone } from './bind-zone.ts';
import { forgetFakeSystemctl, onboardedPanelOn } from '../../../infra/onboarded-panel.ts';
import { isRouteText } from '../../../../lib/system/proxy/templates.ts';


const s = suite('wildcard certificate through DNS-01: bind9, pebble, certbot rfc2136, nginx');
let bind: BindZone;
let infra: Infra;
let t: TestApp;
let pebbleRoot = '';
let scratch = '';
let appPort = 0;
const servers: Server[] = [];
const fqdn = `app.${TEST_DOMAIN}`;
const live = (name: string) => join(infra.dir, 'certbot', 'config', 'live', name);
const exists = (path: string) => lstat(path).then(() => true, () => false);

function listen(port: number, handler: Parameters<typeof createServer>[1]): Promise<void> {
  const server = createServer(handler);
  servers.push(server);
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
}

/** HTTPS through nginx, verifying the certificate against pebble's root for the name asked. */
function viaNginx(host: string): Promise<TestResponse> {
  return withTimeout(`GET https://${host}/`, 15_000, () => loopbackRequest({ port: infra.ports.https, host, path: '/', tls: { ca: pebbleRoot } }));
}

async function servedNames(name: string): Promise<string> {
  return new X509Certificate(await readFile(join(live(name), 'fullchain.pem'))).subjectAltName ?? '';
}

s.before(async () => {
  // nginx's workers (nobody) serve the HTTP-01 webroot, so every directory above it must let them
  // through: the runner's temp dir is 0700, so the infrastructure goes in one of its own
  scratch = await mkdtemp(existsSync('/dev/shm') ? '/dev/shm/relay-dns01-' : join(tmpdir(), 'relay-dns01-'));
  await chmod(scratch, 0o755);
  bind = await startBindZone(scratch, TEST_DOMAIN);
  const runnerTmp = process.env.TMPDIR;
  process.env.TMPDIR = scratch;
  try {
    infra = await startInfra({ pebbleDnsServer: `127.0.0.1:${bind.port}` });
  } finally {
    if (runnerTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = runnerTmp;
  }
  pebbleRoot = await readFile(infra.pebbleRoot, 'utf8');
  const [app, traffic] = await freePorts(2);
  appPort = defined(app, 'a free port for the app');
  await listen(appPort, (_req, res) => res.end('app'));
  // the auth portal's authz endpoint lets everyone in
  await listen(infra.ports.authPortal, (_req, res) => {
    res.setHeader('Remote-User', 'alice');
    res.end();
  });
  t = await onboardedPanelOn(infra, { system: { nginx: { trafficPort: defined(traffic, 'a free port for the traffic log') } } });
});

s.after(async () => {
  await t?.close();
  forgetFakeSystemctl();
  await Promise.all(servers.map((srv) => new Promise((r) => srv.close(r))));
  await infra?.stop();
  await bind?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

s('a wrong TSIG secret: bind refuses the update, certbot\'s plugin says so in the answer, and the box is as it was', timed(60_000, async () => {
  const wrong = Buffer.from('not-the-key-bind-knows-32-bytes!').toString('base64');
  const { status, body } = await t.call('PUT', '/api/settings/certificates', {
    body: { mode: 'wildcard', provider: 'rfc2136', credentials: { server: '127.0.0.1', port: bind.port, name: bind.keyName, secret: wrong }, propagationSeconds: 0 },
  });
  assert.is(status, 500, JSON.stringify(body));
  assert.is(body.error, 'Certificate mode change failed');
  assert.match(body.details, /^Certificate issuance failed: /);
  // dnspython's words for bind's BADSIG answer, as the plugin passes them on
  assert.match(body.details, /PluginError: Encountered error when making query: The peer didn't like the signature we sent/, body.details);
  assert.not.ok(body.details.includes(wrong), 'the secret is not repeated back');
  assert.is(t.services.config.value.certificateMode.mode, 'per-name');
  assert.not.ok(await exists(live(TEST_DOMAIN)), 'no lineage');
  assert.not.ok(await exists(join(t.services.store.dataDir, 'dns01', 'rfc2136.ini')), 'no credentials file left');
}));

s('to wildcard: certbot answers DNS-01 through bind, one lineage for the domain and *.domain', timed(60_000, async () => {
  const { status, body } = await t.call('PUT', '/api/settings/certificates', {
    body: { mode: 'wildcard', provider: 'rfc2136', credentials: { server: '127.0.0.1', port: bind.port, name: bind.keyName, secret: bind.secret }, propagationSeconds: 0 },
  });
  assert.is(status, 200, JSON.stringify(body));
  assert.is(body.mode, 'wildcard');
  assert.is(await servedNames(TEST_DOMAIN), `DNS:${TEST_DOMAIN}, DNS:*.${TEST_DOMAIN}`);
  // pebble read the challenge from bind: its TXT lookups are in named's query log
  assert.match(await bind.log(), new RegExp(`_acme-challenge\\.${TEST_DOMAIN.replace('.', '\\.')} IN TXT`));
  const renewal = await readFile(join(infra.dir, 'certbot', 'config', 'renewal', `${TEST_DOMAIN}.conf`), 'utf8');
  assert.match(renewal, /^authenticator = dns-rfc2136$/m, 'renewals use the DNS plugin too');
  assert.match(renewal, /^dns_rfc2136_credentials = \//m);
}));

s('a tunnel under the domain: created with no issuance, served by nginx\'s one shared server under the wildcard', timed(30_000, async () => {
  const created = await t.call('POST', '/api/tunnels', { body: { subdomain: 'app', port: appPort } });
  assert.is(created.status, 201, JSON.stringify(created.body));
  assert.not.ok(await exists(live(fqdn)), 'certbot issued nothing for the tunnel');
  const r = await viaNginx(fqdn);
  assert.is(r.status, 200, r.body);
  assert.is(r.body, 'app');
  // the shared server's traffic log names the tunnel by the request's host, and the meter counts it
  await waitFor('the request counted for the tunnel', async () => {
    const status = await t.call('GET', '/api/tunnels/status');
    return (status.body.tunnels as Array<{ subdomain: string; traffic: { lastMinute: { requests: number } } }>).find((x) => x.subdomain === 'app')?.traffic.lastMinute.requests === 1;
  }, null, 10_000);
  // its file is a route of the shared server, linked where that server's map reads it
  assert.ok(await exists(join(infra.nginxPrefix, 'relay-routes', `relay-app-${fqdn}.conf`)));
  assert.not.ok(await exists(join(infra.nginxPrefix, 'sites-enabled', `relay-app-${fqdn}.conf`)));
  // a name under the domain without a tunnel: the shared server's plain 404, never another app
  const unknown = await viaNginx(`nothing.${TEST_DOMAIN}`);
  assert.equal([unknown.status, unknown.body], [404, 'Not found\n']);
  const id = (created.body as { tunnel: { id: string } }).tunnel.id;
  assert.is((await t.call('PATCH', `/api/tunnels/${id}`, { body: { enabled: false } })).status, 200);
  assert.is((await viaNginx(fqdn)).status, 404, 'a disabled tunnel\'s route is unlinked');
  assert.is((await t.call('PATCH', `/api/tunnels/${id}`, { body: { enabled: true } })).status, 200);
  assert.is((await viaNginx(fqdn)).body, 'app');
}));

s('renewal of the wildcard lineage answers DNS-01 again, from what its renewal configuration kept', timed(30_000, async () => {
  const before = await readFile(join(live(TEST_DOMAIN), 'cert.pem'), 'utf8');
  const queries = (await bind.log()).split('_acme-challenge').length;
  // certbot renew, as the timer's service and the certificates page run it (without their listings)
  await t.services.system.certs.renew(TEST_DOMAIN);
  assert.is.not(await readFile(join(live(TEST_DOMAIN), 'cert.pem'), 'utf8'), before);
  assert.ok((await bind.log()).split('_acme-challenge').length > queries, 'pebble looked the new challenge up in bind');
}));

s('back to per-name: the tunnel gets its own certificate through HTTP-01 before its vhost names it', timed(60_000, async () => {
  const { status, body } = await t.call('PUT', '/api/settings/certificates', { body: { mode: 'per-name' } });
  assert.is(status, 200, JSON.stringify(body));
  assert.is(await servedNames(fqdn), `DNS:${fqdn}`);
  assert.not.ok(await exists(live(TEST_DOMAIN)), 'the wildcard lineage is deleted');
  // still a route of the shared server, which now gives each name its own certificate from root's map
  const route = await readFile(join(infra.nginxPrefix, 'sites-available', `relay-app-${fqdn}.conf`), 'utf8');
  assert.ok(isRouteText(route), route);
  const shared = await readFile(join(infra.nginxPrefix, 'sites-available', `relay-tunnels-${TEST_DOMAIN}.conf`), 'utf8');
  assert.ok(shared.includes('ssl_certificate data:$relay_sni_pem0$relay_sni_pem1$relay_sni_pem2$relay_sni_pem3;'), shared);
  const r = await viaNginx(fqdn);
  assert.is(r.status, 200, r.body);
}));

s.run();
