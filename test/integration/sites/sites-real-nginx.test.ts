// Static sites through the API against real nginx, pebble + certbot and dnsmasq on loopback
// (test/infra/harness.ts). A local HTTP server on the portal's port plays Authelia's authz endpoint,
// and the fake systemctl (test/fakes/bin) takes the portal restart: systemd is not PID 1 here.
import { createServer, type Server } from 'node:http';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestApp, type TestApp } from '../../../lib/testing.ts';
import { timed, withTimeout } from '../../helpers/timeout.ts';
import { startFakeHost, type FakeHost } from '../../infra/fake-host.ts';
import { startInfra, TEST_DOMAIN, type Infra } from '../../infra/harness.ts';
import { loopbackRequest, type TestResponse } from '../../infra/http.ts';
import { uploadThroughApi } from './upload-client.ts';
import { placeholderPage } from '../../../lib/sites/files/placeholder.ts';
import { refreshVhosts } from '../../../lib/host-state/reconcile.ts';

const s = suite('static sites against real nginx, pebble, certbot and dnsmasq (fake systemctl)');
let infra: Infra;
let fakes: FakeHost;
let t: TestApp;
let pebbleRoot = '';
let portal: Server;
const portalHits: string[] = [];
const docs = `docs.${TEST_DOMAIN}`;
const custom = 'shop.customer.test';
let docsId = '';
let shopId = '';

function viaNginx(host: string, path = '/'): Promise<TestResponse> {
  return withTimeout(`GET https://${host}${path}`, 15_000, () => loopbackRequest({ port: infra.ports.https, host, path, tls: { ca: pebbleRoot } }));
}

s.before(async () => {
  infra = await startInfra();
  pebbleRoot = await readFile(infra.pebbleRoot, 'utf8');
  portal = createServer((req, res) => {
    const original = String(req.headers['x-original-url'] ?? req.url);
    portalHits.push(original);
    // as Authelia 4.38: a host outside every session cookie domain (here only the base domain) is a 400
    const host = URL.canParse(original) ? new URL(original).hostname : '';
    if (host !== TEST_DOMAIN && !host.endsWith(`.${TEST_DOMAIN}`)) return void res.writeHead(400).end();
    res.setHeader('Remote-User', 'alice');
    res.end();
  });
  await new Promise<void>((resolve) => portal.listen(infra.ports.authPortal, '127.0.0.1', () => resolve()));
  fakes = await startFakeHost(join(infra.dir, 'fakes'));
  t = await createTestApp({ config: { ip: '127.0.0.1', system: infra.systemConfig({ binaries: { systemctl: fakes.config.binaries!.systemctl } }) } });
  await t.completeOnboarding(TEST_DOMAIN, `ops@${TEST_DOMAIN}`);
});

s.after(async () => {
  await t?.close();
  await new Promise((r) => portal?.close(r));
  await fakes?.close();
  await infra?.stop();
});

s('managed site: certificate from pebble, the placeholder page at once, files uploaded through the API served over HTTPS; dot files 403; 404 off SPA mode', timed(120_000, async () => {
  const created = await t.call('POST', '/api/sites', { body: { name: 'docs', type: 'managed' } });
  assert.is(created.status, 201, JSON.stringify(created.body));
  docsId = created.body.site.id;
  // live the moment it is made: the placeholder page naming the site, until an index.html is uploaded
  const placeholder = await viaNginx(docs, '/');
  assert.equal([placeholder.status, placeholder.body], [200, placeholderPage('docs')]);
  const uploaded = await uploadThroughApi(t, docsId, '.', { 'index.html': '<h1>docs</h1>', 'assets/app.js': 'console.log("docs")' });
  assert.equal([uploaded.status, uploaded.body], [200, { ok: true, files: ['index.html', 'assets/app.js'] }]);
  const index = await viaNginx(docs, '/');
  assert.equal([index.status, index.body], [200, '<h1>docs</h1>']);
  const script = await viaNginx(docs, '/assets/app.js');
  assert.equal([script.status, script.body], [200, 'console.log("docs")']);
  await writeFile(join(created.body.site.rootPath, '.env'), 'SECRET=1');
  assert.is((await viaNginx(docs, '/.env')).status, 403);
  assert.is((await viaNginx(docs, '/some/client/route')).status, 404);
  assert.is(portalHits.length, 0, 'not protected: the portal was never asked');
}));

s('SPA mode: an unknown path answers index.html', timed(30_000, async () => {
  const r = await t.call('PATCH', `/api/sites/${docsId}`, { body: { spaMode: true } });
  assert.is(r.status, 200, JSON.stringify(r.body));
  const route = await viaNginx(docs, '/some/client/route');
  assert.equal([route.status, route.body], [200, '<h1>docs</h1>']);
}));

s('autheliaProtected: the vhost asks the portal before serving', timed(30_000, async () => {
  const r = await t.call('PATCH', `/api/sites/${docsId}`, { body: { autheliaProtected: true } });
  assert.is(r.status, 200, JSON.stringify(r.body));
  const vhost = await readFile(join(infra.nginxPrefix, 'sites-available', `relay-site-${docs}.conf`), 'utf8');
  assert.match(vhost, 'auth_request');
  const page = await viaNginx(docs, '/assets/app.js');
  assert.is(page.status, 200);
  assert.ok(portalHits.some((u) => u.includes('/assets/app.js')), JSON.stringify(portalHits));
}));

s('custom site: verify-dns through dnsmasq, certificate from pebble through certbot, then served', timed(120_000, async () => {
  const created = await t.call('POST', '/api/sites', { body: { name: 'shop', type: 'custom', customDomain: custom } });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const id = (shopId = created.body.site.id);
  const early = await t.call('POST', `/api/sites/${id}/verify-dns`);
  assert.equal([early.body.ok, early.body.resolvedIps], [false, []]);
  await infra.addHostRecord(custom, '127.0.0.1');
  const verified = await t.call('POST', `/api/sites/${id}/verify-dns`);
  assert.equal([verified.status, verified.body.ok], [200, true], JSON.stringify(verified.body));
  assert.equal((await viaNginx(custom, '/')).body, placeholderPage('shop'));
  await uploadThroughApi(t, id, '.', { 'index.html': 'shop' });
  const page = await viaNginx(custom, '/');
  assert.equal([page.status, page.body], [200, 'shop']);
}));

s('a protected custom site outside the base domain: asked for, a 400 saying why; stored so by an older release, 403 at nginx, never 500', timed(30_000, async () => {
  const refused = await t.call('PATCH', `/api/sites/${shopId}`, { body: { autheliaProtected: true } });
  assert.is(refused.status, 400);
  assert.match(refused.body.error, "the portal's session cookie covers only");
  // the record and vhost as an earlier release wrote them: the portal refuses this host, nginx says 500
  await t.services.store.sites.update((list) => void (list.find((x) => x.id === shopId)!.autheliaProtected = true));
  const site = t.services.store.sites.value.find((x) => x.id === shopId)!;
  await t.services.system.proxy.apply([{ op: 'put', enabled: true, spec: { kind: 'site', fqdn: custom, root: site.rootPath, spaMode: false, protected: true } }]);
  assert.is((await viaNginx(custom, '/')).status, 500);
  assert.equal((await refreshVhosts(t.services)).closed, [custom]);
  const hits = portalHits.length;
  const page = await viaNginx(custom, '/');
  assert.equal([page.status, page.body], [403, 'This site is protected, and the sign-in portal does not serve its domain.\n']);
  assert.is(portalHits.length, hits, 'the portal is not asked');
}));

s('DELETE: the vhost and the files are gone', timed(30_000, async () => {
  const r = await t.call('DELETE', `/api/sites/${docsId}`);
  assert.equal([r.status, r.body], [200, { ok: true }]);
  const outcome = await viaNginx(docs, '/').then((x) => `status ${x.status}`, (e: Error) => `error ${e.message}`);
  assert.match(outcome, /^error .*altnames/, 'no vhost presents the site certificate any more');
}));

s.run();
