// Real nginx + pebble + certbot + dnsmasq on loopback (test/infra/harness.ts).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer, type Server, type IncomingMessage } from 'node:http';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promises as dns } from 'node:dns';
import { createSystem, SystemError, type System, type VhostSpec } from '../../../lib/system/index.ts';
import { startInfra, TEST_DOMAIN, V6_ONLY, type Infra } from '../../infra/harness.ts';
import { loopbackRequest } from '../../infra/http.ts';
import { timed } from '../../helpers/timeout.ts';
import { answerAuthz } from '../../helpers/fake-authz.ts';

const s = suite('host proxy and certs against real nginx, pebble and certbot');
let infra: Infra;
let system: System;
let pebbleRoot = '';
const servers: Server[] = [];
const seen: IncomingMessage[] = [];
let authAnswer = 200;
let portalUrl = '';
const names = { panel: `panel.${TEST_DOMAIN}`, auth: `auth.${TEST_DOMAIN}`, tunnel: `tunnel.${TEST_DOMAIN}`, app: `app.${TEST_DOMAIN}`, site: `site.${TEST_DOMAIN}` };

function listen(port: number, handler: (req: IncomingMessage, res: import('node:http').ServerResponse) => void): Promise<void> {
  const server = createServer(handler);
  servers.push(server);
  return new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
}

s.before(async () => {
  infra = await startInfra();
  system = createSystem(infra.systemConfig(), { dataDir: join(infra.dir, 'data') });
  pebbleRoot = await readFile(infra.pebbleRoot, 'utf8');
  portalUrl = `https://auth.${TEST_DOMAIN}:${infra.ports.https}`;
  // the app behind the tunnel (stands in for chisel's reverse listener)
  await listen(infra.ports.tunnelServer + 0, (req, res) => {
    seen.push(req);
    res.setHeader('content-type', 'application/json');
    const forgedCertHeaders = Object.keys(req.headers).filter((h) => h.startsWith('x-ssl-'));
    res.end(JSON.stringify({ app: true, url: req.url, remoteUser: req.headers['remote-user'] ?? null, forgedCertHeaders }));
  });
  // Authelia's authz endpoint: answers what the test says, as Authelia 4.38 does
  await listen(infra.ports.authPortal, (req, res) => answerAuthz(req, res, { user: authAnswer === 200 ? 'alice' : null, portalUrl }));
});

s.after(async () => {
  await Promise.all(servers.map((srv) => new Promise((r) => srv.close(r))));
  await infra?.stop();
});

s('certbot issues real certificates from pebble, once', timed(90_000, async () => {
  for (const fqdn of Object.values(names)) {
    const r = await system.certs.issue(fqdn, `ops@${TEST_DOMAIN}`);
    assert.is(r.issued, true, fqdn);
  }
  const again = await system.certs.issue(names.app, `ops@${TEST_DOMAIN}`);
  assert.is(again.issued, false);
  const list = await system.certs.list();
  assert.equal(list.map((c) => c.domain).sort(), Object.values(names).sort());
  assert.ok(list.every((c) => c.daysLeft > 300));
}));

s('nginx -t passes for every template, and nginx serves them', timed(30_000, async () => {
  const root = join(infra.dir, 'site-root');
  await mkdir(join(root, 'assets'), { recursive: true });
  await writeFile(join(root, 'index.html'), '<h1>spa index</h1>');
  await writeFile(join(root, 'assets', 'a.txt'), 'asset');
  await writeFile(join(root, '.secret'), 'hidden');
  const specs: VhostSpec[] = [
    { kind: 'ip-panel' },
    { kind: 'panel', fqdn: names.panel },
    { kind: 'auth-portal', fqdn: names.auth },
    { kind: 'tunnel-server', fqdn: names.tunnel },
    { kind: 'app', fqdn: names.app, port: infra.ports.tunnelServer },
    { kind: 'site', fqdn: names.site, root, spaMode: true, protected: false },
  ];
  await system.proxy.apply(specs.map((spec) => ({ op: 'put' as const, spec, enabled: true })));
  for (const spec of specs) assert.equal(await system.proxy.state(system.proxy.vhostName(spec)), { name: system.proxy.vhostName(spec), written: true, enabled: true });

  const tls = { ca: pebbleRoot };
  const spa = await loopbackRequest({ port: infra.ports.https, host: names.site, path: '/deep/route', tls });
  assert.is(spa.status, 200);
  assert.match(spa.body, 'spa index');
  assert.is((await loopbackRequest({ port: infra.ports.https, host: names.site, path: '/assets/a.txt', tls })).body, 'asset');
  assert.is((await loopbackRequest({ port: infra.ports.https, host: names.site, path: '/.secret', tls })).status, 403);

  const redirect = await loopbackRequest({ port: infra.ports.http, host: names.site, path: '/x?y=1' });
  assert.is(redirect.status, 301);
  assert.is(redirect.headers.location, `https://${names.site}:${infra.ports.https}/x?y=1`);
  await mkdir(join(infra.nginxPrefix, 'webroot', '.well-known', 'acme-challenge'), { recursive: true });
  await writeFile(join(infra.nginxPrefix, 'webroot', '.well-known', 'acme-challenge', 'tok'), 'keyauth');
  assert.is((await loopbackRequest({ port: infra.ports.http, host: names.site, path: '/.well-known/acme-challenge/tok' })).body, 'keyauth');
}));

s('the app tunnel vhost carries HTTPS to the local app on the tunnel port, with the portal user and no forged X-SSL-*', timed(20_000, async () => {
  authAnswer = 200;
  const forged = { 'Remote-User': 'mallory', 'X-SSL-Client-Verify': 'SUCCESS', 'X-SSL-Client-DN': 'CN=admin', 'X-SSL-Client-Serial': '1000' };
  const r = await loopbackRequest({ port: infra.ports.https, host: names.app, path: '/hello', headers: forged, tls: { ca: pebbleRoot } });
  assert.is(r.status, 200);
  assert.equal(JSON.parse(r.body), { app: true, url: '/hello', remoteUser: 'alice', forgedCertHeaders: [] });
}));

s('a protected vhost sends a signed-out visitor to the portal with the whole URL, every query parameter kept', timed(20_000, async () => {
  authAnswer = 401;
  const before = seen.length;
  const path = '/private/page?a=1&b=two&c=x%20y&d=%26amp';
  const r = await loopbackRequest({ port: infra.ports.https, host: names.app, path, tls: { ca: pebbleRoot } });
  assert.is(r.status, 302);
  const location = new URL(String(r.headers.location));
  assert.is(location.origin, portalUrl);
  // what the portal sends the browser back to after login
  assert.is(location.searchParams.get('rd'), `https://${names.app}:${infra.ports.https}/private/page?a=1&b=two&c=x%20y&d=%26amp`);
  assert.is(location.searchParams.get('rm'), 'GET');
  assert.is(seen.length, before, 'the app never saw the request');
  authAnswer = 200;
}));

s('a failed nginx -t restores the previous vhost and names nginx\'s error', timed(20_000, async () => {
  const spec: VhostSpec = { kind: 'app', fqdn: names.app, port: infra.ports.tunnelServer };
  const name = system.proxy.vhostName(spec);
  const path = join(infra.nginxPrefix, 'sites-available', name);
  const original = await readFile(path, 'utf8');
  const noCert: VhostSpec = { kind: 'app', fqdn: `nocert.${TEST_DOMAIN}`, port: 4000 };
  let error: unknown;
  try {
    await system.proxy.apply([
      { op: 'put', spec: { ...spec, port: 4001 }, enabled: true },
      { op: 'put', spec: noCert, enabled: true },
    ]);
  } catch (e) {
    error = e;
  }
  assert.instance(error, SystemError);
  assert.match((error as Error).message, /nginx configuration test failed: .*cannot load certificate/);
  assert.is(await readFile(path, 'utf8'), original);
  assert.equal(await system.proxy.state(system.proxy.vhostName(noCert)), { name: system.proxy.vhostName(noCert), written: false, enabled: false });
  // nginx still serves the old vhost
  const r = await loopbackRequest({ port: infra.ports.https, host: names.app, path: '/still', tls: { ca: pebbleRoot } });
  assert.is(r.status, 200);
}));

s('a reload that cannot bind is reported from the error log', timed(20_000, async () => {
  const stray = join(infra.nginxPrefix, 'sites-enabled', 'zz-stray.conf');
  // a wildcard listen next to 127.0.0.1:<port>: nginx -t passes, the reload exits 0 and fails to bind
  await writeFile(stray, `server { listen ${infra.ports.http}; server_name stray.invalid; return 404; }\n`);
  try {
    await system.proxy.reload().then(() => assert.unreachable('reload should report the bind failure'), (e: Error) => {
      assert.instance(e, SystemError);
      assert.match(e.message, /bind\(\)/);
    });
  } finally {
    await rm(stray, { force: true });
    await system.proxy.reload().catch(() => {});
  }
}));

s('certbot NXDOMAIN surfaces as a SystemError ready for "Certificate issuance failed: ..."', timed(30_000, async () => {
  const fqdn = 'nothing.unknown.test';
  let error: unknown;
  try {
    await system.certs.issue(fqdn, `ops@${TEST_DOMAIN}`);
  } catch (e) {
    error = e;
  }
  assert.instance(error, SystemError);
  const details = `Certificate issuance failed: ${(error as SystemError).details}`;
  assert.match(details, /^Certificate issuance failed: certbot could not issue nothing\.unknown\.test: /);
  assert.match(details, /nothing\.unknown\.test/);
  assert.match(details.toLowerCase(), /resolve|nxdomain|dns|no such host/);
  assert.is(await system.certs.has(fqdn), false);
}));

s('dns resolves through the configured servers; NXDOMAIN and NODATA are empty', timed(10_000, async () => {
  assert.equal(await system.dns.resolve4(`x.${TEST_DOMAIN}`), ['127.0.0.1']);
  assert.equal(await system.dns.resolve4('unknown.test'), []);
  // NODATA: the name exists (it has an AAAA record) but has no A record
  const direct = new dns.Resolver({ timeout: 1000, tries: 1 });
  direct.setServers([`127.0.0.1:${infra.ports.dns}`]);
  assert.equal(await direct.resolve6(V6_ONLY), ['::1']);
  await direct.resolve4(V6_ONLY).then(() => assert.unreachable(), (e: NodeJS.ErrnoException) => assert.is(e.code, 'ENODATA'));
  assert.equal(await system.dns.resolve4(V6_ONLY), []);
  await infra.addHostRecord('other.test', '127.0.0.2');
  assert.equal(await system.dns.resolve4('other.test'), ['127.0.0.2']);
}));

s.run();
