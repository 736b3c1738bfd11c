// Tunnels through the API against real nginx, pebble + certbot and dnsmasq on loopback
// (test/infra/harness.ts). A local HTTP server on the tunnel's port stands in for chisel's reverse
// listener of a connected client; the chisel authfile is the host adapter's real file (chisel itself
// is not run), and the fake systemctl (no systemd here) records the tunnel server's restarts.
import { createServer, type Server } from 'node:http';
import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { reversePortPattern } from '../../../lib/system/tunnel-server/authfile.ts';
import type { TestApp } from '../../../lib/testing.ts';
import { defined } from '../../helpers/defined.ts';
import { timed, withTimeout } from '../../helpers/timeout.ts';
import { startInfra, TEST_DOMAIN, type Infra } from '../../infra/harness.ts';
import { loopbackRequest, type TestResponse } from '../../infra/http.ts';
import { freePorts } from '../../infra/ports.ts';
import { startReceiver } from '../../helpers/webhook-receiver.ts';
import { CATCH_ALL, requestUnchecked } from '../../helpers/catch-all.ts';
import { forgetFakeSystemctl, onboardedPanelOn } from '../../infra/onboarded-panel.ts';


const s = suite('tunnels against real nginx, pebble, certbot and dnsmasq');
let infra: Infra;
let t: TestApp;
let pebbleRoot = '';
let appPort = 0;
let keepPort = 0;
let appId = '';
const servers: Server[] = [];
const appHits: string[] = [];
const fqdn = `app.${TEST_DOMAIN}`;

function listen(port: number, handler: Parameters<typeof createServer>[1]): Promise<void> {
  const server = createServer(handler);
  servers.push(server);
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
}

/** An HTTPS request to the name through nginx, verifying pebble's certificate for that name. */
function viaNginx(host: string, path = '/'): Promise<TestResponse> {
  return withTimeout(`GET https://${host}${path}`, 15_000, () => loopbackRequest({ port: infra.ports.https, host, path, tls: { ca: pebbleRoot } }));
}

/** Routed: the local app on the tunnel's port answered, behind the portal's user. */
async function assertRouted(path: string) {
  const r = await viaNginx(fqdn, path);
  assert.is(r.status, 200, r.body);
  assert.equal(JSON.parse(r.body), { app: 'app', url: path, remoteUser: 'alice' });
}

/**
 * Not routed: nginx has no vhost for the name, so the TLS check fails (the default server's
 * certificate is self-signed); a client that skips the check gets the default server's plain 404,
 * never another tunnel's or site's page.
 */
async function assertNotRouted(path: string) {
  const before = appHits.length;
  const outcome = await viaNginx(fqdn, path).then((r) => `status ${r.status}`, (e: Error) => `error ${e.message}`);
  assert.match(outcome, /^error .*self-signed/, 'the certificate presented is not the tunnel\'s');
  await assertCatchAll(fqdn, path);
  assert.is(appHits.length, before, 'the app saw no request');
}

/** The default server answers: plain 404 under its self-signed certificate, on 443 and on 80. */
async function assertCatchAll(host: string | null, path = '/') {
  const answer = await withTimeout(`GET https://${host ?? 'the address'}${path} unchecked`, 15_000, () =>
    requestUnchecked({ port: infra.ports.https, host, path, tls: true }));
  assert.equal(answer, CATCH_ALL, `${host ?? 'the bare address'} over HTTPS`);
  const plain = await withTimeout(`GET http://${host ?? 'the address'}${path}`, 15_000, () =>
    requestUnchecked({ port: infra.ports.http, host, path, tls: false }));
  assert.equal(plain, { ...CATCH_ALL, certificate: null }, `${host ?? 'the bare address'} over HTTP`);
}

/** The ports the chisel authfile grants, straight from the file chisel reads. */
async function authfilePorts(): Promise<string[]> {
  const text = await readFile(join(infra.dir, 'chisel', 'users.json'), 'utf8');
  const grants = Object.values(JSON.parse(text) as Record<string, string[]>);
  assert.is(grants.length, 1, 'one tunnel user');
  return grants[0]!;
}

const grantsFor = (...ports: number[]) => ports.sort((a, b) => a - b).map(reversePortPattern);

async function vhostFiles(): Promise<{ available: boolean; enabled: boolean }> {
  const name = `relay-app-${fqdn}.conf`;
  const exists = (p: string) => lstat(p).then(() => true, () => false);
  return {
    available: await exists(join(infra.nginxPrefix, 'sites-available', name)),
    // a tunnel one label under the domain is a route of the shared server, linked beside sites-available
    enabled: await exists(join(infra.nginxPrefix, 'relay-routes', name)),
  };
}

s.before(async () => {
  infra = await startInfra();
  pebbleRoot = await readFile(infra.pebbleRoot, 'utf8');
  const [app, keep, traffic] = await freePorts(3);
  appPort = defined(app, 'a free port for the app');
  keepPort = defined(keep, 'a free port for keep');
  for (const [port, name] of [[appPort, 'app'], [keepPort, 'keep']] as const) {
    await listen(port, (req, res) => {
      if (name === 'app') appHits.push(req.url ?? '');
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ app: name, url: req.url, remoteUser: req.headers['remote-user'] ?? null }));
    });
  }
  // the auth portal's authz endpoint lets everyone in as alice
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
});

s('create: certificate from pebble, vhost live, HTTPS reaches the app on the tunnel port', timed(120_000, async () => {
  const keep = await t.call('POST', '/api/tunnels', { body: { subdomain: 'keep', port: keepPort } });
  assert.is(keep.status, 201, JSON.stringify(keep.body));
  const created = await t.call('POST', '/api/tunnels', { body: { subdomain: 'app', port: appPort, description: 'integration' } });
  assert.is(created.status, 201, JSON.stringify(created.body));
  appId = created.body.tunnel.id;
  assert.is(created.body.tunnel.fqdn, fqdn);
  assert.ok(await t.services.system.certs.has(fqdn));
  assert.equal(await vhostFiles(), { available: true, enabled: true });
  await assertRouted('/hello?x=1');
  assert.equal(await authfilePorts(), grantsFor(keepPort, appPort));
}));

s('the default server: an unknown subdomain, another domain and the bare address get a plain 404, never an app', timed(30_000, async () => {
  const before = appHits.length;
  await assertCatchAll(`nothing.${TEST_DOMAIN}`, '/invite/secret-token?a=1&b=2');
  await assertCatchAll('unknown.test');
  await assertCatchAll(null);
  assert.is(appHits.length, before, 'the app saw no request');
  // the default server logs no request line: one carrying a secret (an invitation link) stays out
  // of both logs, which the harness's nginx writes (the routed tests above filled the access log)
  const accessLog = await readFile(join(infra.nginxPrefix, 'logs', 'access.log'), 'utf8');
  assert.ok(accessLog.length > 0, 'the access log is written');
  assert.not.match(accessLog, 'nothing.' + TEST_DOMAIN);
  assert.not.match(accessLog, 'secret-token');
  assert.not.match(await readFile(join(infra.nginxPrefix, 'logs', 'error.log'), 'utf8'), 'secret-token');
}));

s('traffic: requests through the tunnel\'s vhost are counted from nginx\'s traffic log', timed(30_000, async () => {
  for (let i = 0; i < 5; i++) await assertRouted(`/count-${i}`);
  let app: { traffic: { lastMinute: { requests: number; bytesOut: number; errors: number; p50Ms: number | null } } } | undefined;
  for (let i = 0; i < 50; i++) {
    const status = await t.call('GET', '/api/tunnels/status');
    app = status.body.tunnels.find((x: { subdomain: string }) => x.subdomain === 'app');
    if ((app?.traffic.lastMinute.requests ?? 0) >= 6) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const minute = app!.traffic.lastMinute;
  assert.ok(minute.requests >= 6, `the create test's request and these five: ${JSON.stringify(minute)}`);
  assert.ok(minute.bytesOut > 0);
  assert.is(minute.errors, 0);
  assert.type(minute.p50Ms, 'number');
}));

/** How often the tunnel server was restarted (chisel's sessions ended). */
async function chiselRestarts(): Promise<number> {
  const lines = (await readFile(process.env.FAKE_ARGV_LOG!, 'utf8').catch(() => '')).split('\n').filter(Boolean);
  return lines.map((l) => (JSON.parse(l) as { argv: string[] }).argv.join(' ')).filter((a) => a === 'restart chisel').length;
}

s('disable: no longer routed, vhost file kept, port withdrawn from the authfile, the connected client\'s session ended', timed(30_000, async () => {
  const restarts = await chiselRestarts();
  const r = await t.call('PATCH', `/api/tunnels/${appId}`, { body: { enabled: false } });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.is(await chiselRestarts(), restarts + 1, 'a listener on the revoked port: chisel restarted');
  assert.equal(await vhostFiles(), { available: true, enabled: false });
  await assertNotRouted('/after-disable');
  assert.equal(await authfilePorts(), grantsFor(keepPort));
}));

s('enable: routed again, port granted again', timed(30_000, async () => {
  const r = await t.call('PATCH', `/api/tunnels/${appId}`, { body: { enabled: true } });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.equal(await vhostFiles(), { available: true, enabled: true });
  await assertRouted('/after-enable');
  assert.equal(await authfilePorts(), grantsFor(keepPort, appPort));
}));

s('delete: vhost gone, not routed, certificate still present, authfile lists only the other tunnel', timed(30_000, async () => {
  const r = await t.call('DELETE', `/api/tunnels/${appId}`);
  assert.equal([r.status, r.body], [200, { ok: true }]);
  assert.equal(await vhostFiles(), { available: false, enabled: false });
  await assertNotRouted('/after-delete');
  assert.ok(await t.services.system.certs.has(fqdn), 'certificate kept');
  const live = join(infra.systemConfig().acme.configDir, 'live', fqdn, 'fullchain.pem');
  assert.match(await readFile(live, 'utf8'), 'BEGIN CERTIFICATE');
  assert.equal(await authfilePorts(), grantsFor(keepPort));
  // the other tunnel was never disturbed
  const other = await viaNginx(`keep.${TEST_DOMAIN}`, '/still-here');
  assert.equal(JSON.parse(other.body), { app: 'keep', url: '/still-here', remoteUser: 'alice' });
}));

s('alerts on the host driver: keep\'s client gone, nginx answers 502 (counted unreachable), tunnel.down and then tunnel.up reach a receiver; a stopped service alerts', timed(30_000, async () => {
  const receiver = await startReceiver();
  try {
    // the receiver is on loopback: a private target, allowed only by the admin's setting
    assert.is((await t.call('PATCH', '/api/alerts/settings', { body: { allowPrivateTargets: true } })).status, 200);
    const made = await t.call('POST', '/api/alerts/webhooks', { body: { url: receiver.url, events: ['tunnel.down', 'tunnel.up', 'service.inactive'], tunnelDownMinutes: 1 } });
    assert.is(made.status, 201, JSON.stringify(made.body));
    const keepServer = servers.find((srv) => (srv.address() as { port: number } | null)?.port === keepPort)!;
    // time is the watch's input here: the checks' timers would take a minute of the test's time
    const watch = t.services.alertWatch.tunnels;
    const observeAt = async (ms: number) => {
      await t.services.tunnelStatus.refresh();
      watch.observe(await t.services.tunnelStatus.list(), ms);
    };
    const start = Date.now();
    await observeAt(start);
    // nginx keeps its upstream connections open: end them as a client's going would
    keepServer.closeAllConnections();
    await new Promise((r) => keepServer.close(r));
    const gone = await viaNginx(`keep.${TEST_DOMAIN}`, '/gone');
    assert.is(gone.status, 502);
    await observeAt(start + 1_000);
    await observeAt(start + 62_000);
    await receiver.waitFor(1);
    assert.equal([receiver.received[0]!.json.event, receiver.received[0]!.json.data.tunnel.subdomain], ['tunnel.down', 'keep']);
    await listen(keepPort, (_req, res) => res.end('back'));
    await observeAt(start + 90_000);
    await receiver.waitFor(2);
    assert.is(receiver.received[1]!.json.event, 'tunnel.up');
    let keep: { traffic: { lastMinute: { unreachable: number } } } | undefined;
    for (let i = 0; i < 50 && !keep?.traffic.lastMinute.unreachable; i++) {
      keep = (await t.call('GET', '/api/tunnels/status')).body.tunnels.find((x: { subdomain: string }) => x.subdomain === 'keep');
      await new Promise((r) => setTimeout(r, 100));
    }
    assert.is(keep!.traffic.lastMinute.unreachable, 1, 'the 502 of the request made while the client was gone');

    // the services as the fake systemctl reports them: the auth portal running, then stopped
    assert.is((await t.call('POST', '/api/services/auth-portal/start')).status, 200);
    await t.services.alertWatch.checkServices();
    await t.services.alerts.dispatcher.settled();
    const before = receiver.received.length;
    assert.is((await t.call('POST', '/api/services/auth-portal/stop')).status, 200);
    await t.services.alertWatch.checkServices();
    await receiver.waitFor(before + 1);
    assert.equal(receiver.received.at(-1)!.json.data, { service: 'auth-portal', status: 'inactive' });
  } finally {
    await receiver.close();
  }
}));

s.run();
