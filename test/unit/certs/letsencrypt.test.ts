import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sandboxControls } from '../../../lib/system/sandbox-system.ts';
import { createTestApp, type TestApp } from '../../../lib/testing.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';

const s = suite("Let's Encrypt: GET /api/certs, auto-renew-status, POST /api/certs/:domain/renew");
let t: TestApp;
let clock: ManualClock;

s.before.each(async () => {
  clock = new ManualClock(Date.now());
  t = await createTestApp({ clock });
  await t.completeOnboarding();
  for (const name of ['panel.example.test', 'auth.example.test']) await t.services.system.certs.issue(name, 'ops@example.test');
});
s.after.each(() => t.close());

s('GET /api/certs lists every lineage with Portlama\'s domain, type, expiresAt, daysUntilExpiry (and our name, domains, daysLeft); and the admin certificate', async () => {
  const r = await t.call('GET', '/api/certs');
  assert.is(r.status, 200);
  assert.equal(r.body.certs.map((c: { domain: string }) => c.domain).sort(), ['auth.example.test', 'panel.example.test']);
  for (const c of r.body.certs) {
    assert.equal(Object.keys(c).sort(), ['daysLeft', 'daysUntilExpiry', 'domain', 'domains', 'expiresAt', 'expiringSoon', 'name', 'type']);
    assert.is(c.type, 'letsencrypt');
    assert.equal([c.name, c.domains, c.daysLeft], [c.domain, [c.domain], c.daysUntilExpiry]);
    // issued and read on the app's clock: 90 days exactly
    assert.is(Date.parse(c.expiresAt), clock.now() + 90 * 86_400_000);
    assert.is(c.daysUntilExpiry, 90);
    assert.is(c.expiringSoon, false);
  }
  assert.equal(r.body.adminCertificate, { authMode: 'p12', serial: null, expiresAt: null, rotation: null, bundlePending: false });
});

s('the manual clock drives the host: 61 days on, the certificates expire soon and the units have been up 61 days', async () => {
  clock.jump(61 * 86_400_000);
  const { certs } = (await t.call('GET', '/api/certs')).body;
  assert.equal(certs.map((c: { daysUntilExpiry: number; expiringSoon: boolean }) => [c.daysUntilExpiry, c.expiringSoon]), [[29, true], [29, true]]);
  const { services } = (await t.call('GET', '/api/services')).body;
  assert.is(services.find((u: { name: string }) => u.name === 'proxy')?.uptime, '61d 0h 0m', JSON.stringify(services));
});

s('the list is the lineages on disk: a deleted site\'s or tunnel\'s certificate stays, as the deletes keep it', async () => {
  const site = await t.call('POST', '/api/sites', { body: { name: 'blog', type: 'managed' } });
  const tunnel = await t.call('POST', '/api/tunnels', { body: { subdomain: 'app', port: 8080 } });
  assert.equal([site.status, tunnel.status], [201, 201]);
  assert.is((await t.call('DELETE', `/api/sites/${site.body.site.id}`)).status, 200);
  assert.is((await t.call('DELETE', `/api/tunnels/${tunnel.body.tunnel.id}`)).status, 200);
  const r = await t.call('GET', '/api/certs');
  assert.equal(r.body.certs.map((c: { name: string }) => c.name).sort(), ['app.example.test', 'auth.example.test', 'blog.example.test', 'panel.example.test']);
});

s('auto-renew-status is {active, nextRun, lastRun}', async () => {
  assert.equal((await t.call('GET', '/api/certs/auto-renew-status')).body, { active: false, nextRun: null, lastRun: null });
  await t.services.system.certs.setupAutoRenew();
  const r = await t.call('GET', '/api/certs/auto-renew-status');
  assert.is(r.body.active, true);
  assert.ok(Date.parse(r.body.nextRun) > clock.now());
  assert.is(r.body.lastRun, null);
});

s('renew forces certbot and reloads nginx; {ok, domain, newExpiry}', async () => {
  const controls = sandboxControls(t.services.system);
  const reloads = controls.eventsOf('proxy.reload').length;
  const r = await t.call('POST', '/api/certs/panel.example.test/renew');
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.equal(Object.keys(r.body).sort(), ['domain', 'newExpiry', 'ok']);
  assert.is(r.body.domain, 'panel.example.test');
  assert.ok(Date.parse(r.body.newExpiry) > clock.now());
  assert.equal(controls.eventsOf('certs.renew').map((e) => e.detail), [{ fqdn: 'panel.example.test' }]);
  assert.ok(controls.eventsOf('proxy.reload').length > reloads);
});

s('renew: an unknown name 404, a malformed one 400, a certbot failure 500 with details', async () => {
  const unknown = await t.call('POST', '/api/certs/nope.example.test/renew');
  assert.equal([unknown.status, unknown.body], [404, { error: 'Certificate not found' }]);
  assert.is((await t.call('POST', '/api/certs/..%2Fetc/renew')).status, 400);
  sandboxControls(t.services.system).failNext('certs.renew', 'certbot could not renew panel.example.test: boom');
  const failed = await t.call('POST', '/api/certs/panel.example.test/renew');
  assert.is(failed.status, 500);
  assert.equal(failed.body, { error: 'Certificate renewal failed', details: 'certbot could not renew panel.example.test: boom' });
});

s('the listing is served from memory for a few seconds, and taken again after an issue, a renewal or 10 s', async () => {
  const certs = t.services.system.certs;
  const list = certs.list.bind(certs);
  let listings = 0;
  certs.list = () => (listings++, list());
  assert.is((await t.call('GET', '/api/certs')).body.certs.length, 2);
  assert.is((await t.call('GET', '/api/certs')).body.certs.length, 2);
  assert.is(listings, 1, 'the second answer came from memory');
  await certs.issue('tunnel.example.test', 'ops@example.test');
  assert.is((await t.call('GET', '/api/certs')).body.certs.length, 3, 'a new certificate is listed at once');
  assert.is(listings, 2);
  await certs.issue('tunnel.example.test', 'ops@example.test'); // valid already: nothing issued
  await t.call('GET', '/api/certs');
  assert.is(listings, 2, 'nothing changed: still from memory');
  clock.advance(10_000);
  await t.call('GET', '/api/certs');
  assert.is(listings, 3);
});

s('admin-only', async () => {
  await t.addAgent('laptop-1', ['tunnels:read', 'system:read']);
  for (const [method, path] of [['GET', '/api/certs'], ['GET', '/api/certs/auto-renew-status'], ['POST', '/api/certs/panel.example.test/renew']] as const) {
    assert.is((await t.call(method, path, { as: { agent: 'laptop-1' } })).status, 403, path);
  }
});

s.run();
