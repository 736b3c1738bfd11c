import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { defined } from '../../helpers/defined.ts';
import { createSite, DOMAIN, managedSite, seedPortalUsers, siteSuite, siteVhostState } from './helpers.ts';

const s = siteSuite('sites: list, settings, delete, verify-dns');

const MISSING = '0b6f3e1c-1c9a-4e0e-9a53-2f4f3d0c6a11';

s('GET /api/sites: newest first with allowedUsers; agents see only their allowedSites', async ({ t }) => {
  await managedSite(t, 'one');
  await managedSite(t, 'two');
  await managedSite(t, 'three');
  const admin = await t.call('GET', '/api/sites');
  assert.equal(admin.body.sites.map((x: { name: string }) => x.name), ['three', 'two', 'one']);
  assert.equal(admin.body.sites[0].allowedUsers, []);
  await t.addAgent('bot', ['sites:read'], ['one', 'three']);
  const agent = await t.call('GET', '/api/sites', { as: { agent: 'bot' } });
  assert.equal(agent.body.sites.map((x: { name: string }) => x.name), ['three', 'one']);
  await t.addAgent('nocap', [], ['one']);
  const denied = await t.call('GET', '/api/sites', { as: { agent: 'nocap' } });
  assert.equal([denied.status, denied.body], [403, { error: 'Insufficient certificate capability' }]);
});

s('the admin list is cached until the collection changes', async ({ t }) => {
  await managedSite(t, 'one');
  const first = t.services.sites.listJson();
  assert.is(t.services.sites.listJson(), first);
  await managedSite(t, 'two');
  assert.is.not(t.services.sites.listJson(), first);
});

s('PATCH: nothing changed answers {ok, site, message}; no vhost or portal work', async ({ t }) => {
  const site = await managedSite(t, 'blog');
  const reloads = t.sandbox.eventsOf('proxy.reload').length;
  const res = await t.call('PATCH', `/api/sites/${site.id}`, { body: { spaMode: false } });
  assert.is(res.status, 200);
  assert.is(res.body.ok, true);
  assert.is(res.body.message, 'No changes');
  assert.is(res.body.site.id, site.id);
  assert.is(t.sandbox.eventsOf('proxy.reload').length, reloads);
  assert.is(t.sandbox.eventsOf('authPortal.restart').length, 0);
});

s('PATCH spaMode regenerates the live vhost; autheliaProtected and allowedUsers rewrite the portal rules and restart it', async ({ t }) => {
  const site = await managedSite(t, 'blog');
  const vhostFile = () => t.services.system.proxy.state(`relay-site-blog.${DOMAIN}.conf`);
  assert.ok((await vhostFile()).written);
  const spa = await t.call('PATCH', `/api/sites/${site.id}`, { body: { spaMode: true } });
  assert.is(spa.status, 200);
  assert.is(spa.body.site.spaMode, true);
  assert.is(spa.body.message, undefined);
  assert.is(t.sandbox.eventsOf('authPortal.restart').length, 0, 'spaMode alone does not touch the portal');
  await seedPortalUsers(t, 'alice', 'bob');
  const guarded = await t.call('PATCH', `/api/sites/${site.id}`, { body: { autheliaProtected: true, allowedUsers: ['alice', 'bob'] } });
  assert.is(guarded.status, 200);
  assert.equal(guarded.body.site.allowedUsers, ['alice', 'bob']);
  assert.equal(t.sandbox.eventsOf('authPortal.setAccessRules').at(-1)?.detail, { rules: [{ fqdn: `blog.${DOMAIN}`, allowedUsers: ['alice', 'bob'] }] });
  assert.is(t.sandbox.eventsOf('authPortal.restart').length, 1);
  const stored = defined(t.services.store.sites.value[0], 'the stored site');
  assert.equal([stored.spaMode, stored.autheliaProtected, stored.allowedUsers], [true, true, ['alice', 'bob']]);
});

s('PATCH of a custom site without a certificate saves spaMode without touching nginx (the vhost comes with verify-dns)', async ({ t }) => {
  const { body } = await createSite(t, { name: 'shop', type: 'custom', customDomain: 'shop.customer.example' });
  t.sandbox.failNext('proxy.test', 'nginx: [emerg] x');
  const res = await t.call('PATCH', `/api/sites/${body.site.id}`, { body: { spaMode: true } });
  assert.equal([res.status, res.body.site?.spaMode], [200, true], JSON.stringify(res.body));
  assert.is((await siteVhostState(t, 'shop.customer.example')).written, false);
});

s('PATCH: a failed nginx test answers 500 with "Nginx configuration failed:" and keeps the record', async ({ t }) => {
  const site = await managedSite(t, 'blog');
  t.sandbox.failNext('proxy.test', 'nginx: [emerg] bad');
  const res = await t.call('PATCH', `/api/sites/${site.id}`, { body: { spaMode: true } });
  assert.is(res.status, 500);
  assert.is(res.body.error, 'Failed to update site configuration');
  assert.ok(res.body.details.startsWith('Nginx configuration failed: '), res.body.details);
  assert.is(t.services.store.sites.value[0]?.spaMode, false);
});

s('PATCH: a failed portal restart answers "Site saved but the service configuration failed" with the change kept', async ({ t }) => {
  const site = await managedSite(t, 'blog');
  await seedPortalUsers(t, 'alice');
  t.sandbox.failNext('authPortal.restart', 'authelia exited 1');
  const res = await t.call('PATCH', `/api/sites/${site.id}`, { body: { allowedUsers: ['alice'] } });
  assert.is(res.status, 500);
  assert.equal(res.body, { error: 'Site saved but the service configuration failed', details: 'authelia exited 1' });
  assert.equal(t.services.store.sites.value[0]?.allowedUsers, ['alice']);
});

s('PATCH validation: allowedUsers entries need at least one character; 404 for an unknown site; 400 for a malformed id', async ({ t }) => {
  const site = await managedSite(t, 'blog');
  const bad = await t.call('PATCH', `/api/sites/${site.id}`, { body: { allowedUsers: [''] } });
  assert.is(bad.status, 400);
  assert.is(bad.body.details.issues[0].path, 'allowedUsers.0');
  assert.equal((await t.call('PATCH', `/api/sites/${MISSING}`, { body: { spaMode: true } })).body, { error: 'Site not found' });
  const malformed = await t.call('PATCH', '/api/sites/not-a-uuid', { body: { spaMode: true } });
  assert.equal([malformed.status, malformed.body.error], [400, 'Validation failed']);
  const upper = await t.call('PATCH', `/api/sites/${site.id.toUpperCase()}`, { body: { spaMode: true } });
  assert.equal([upper.status, upper.body.site?.id], [200, site.id], 'an upper-case spelling names the same site');
});

s('PATCH: an allowedUsers entry no portal username can have is a 400, so it never reaches (and breaks) the portal rules', async ({ t }) => {
  const site = await managedSite(t, 'blog');
  const other = await managedSite(t, 'docs');
  for (const name of ['Bob Smith', 'bob\nx', 'user:root', 'a', 'x'.repeat(33)]) {
    const res = await t.call('PATCH', `/api/sites/${site.id}`, { body: { autheliaProtected: true, allowedUsers: ['alice', name] } });
    assert.equal([res.status, res.body.error, res.body.details?.issues?.[0]?.path], [400, 'Validation failed', 'allowedUsers.1'], JSON.stringify(name));
  }
  assert.equal(defined(t.services.store.sites.value.find((x) => x.id === site.id), 'blog').allowedUsers, []);
  const next = await t.call('PATCH', `/api/sites/${other.id}`, { body: { autheliaProtected: true } });
  assert.is(next.status, 200, JSON.stringify(next.body));
});

s('PATCH: allowed users the portal does not have are a 400 naming each of them, and nothing is saved', async ({ t }) => {
  const site = await managedSite(t, 'blog');
  await seedPortalUsers(t, 'alice');
  const restarts = t.sandbox.eventsOf('authPortal.restart').length;
  const one = await t.call('PATCH', `/api/sites/${site.id}`, { body: { spaMode: true, allowedUsers: ['alice', 'nosuchuser'] } });
  assert.equal([one.status, one.body], [400, { error: "Unknown user 'nosuchuser'", details: { users: ['nosuchuser'] } }]);
  const two = await t.call('PATCH', `/api/sites/${site.id}`, { body: { allowedUsers: ['ghost', 'alice', 'nosuchuser', 'ghost'] } });
  assert.equal([two.status, two.body], [400, { error: "Unknown users 'ghost', 'nosuchuser'", details: { users: ['ghost', 'nosuchuser'] } }]);
  const stored = defined(t.services.store.sites.value[0], 'blog');
  assert.equal([stored.spaMode, stored.allowedUsers], [false, []], 'neither the list nor the other setting of the refused save');
  assert.is(t.sandbox.eventsOf('authPortal.restart').length, restarts, 'the portal untouched');
  const known = await t.call('PATCH', `/api/sites/${site.id}`, { body: { allowedUsers: ['alice'] } });
  assert.equal([known.status, known.body.site?.allowedUsers], [200, ['alice']]);
  assert.equal(t.services.store.sites.value[0]?.allowedUsers, ['alice']);
});

s('DELETE /api/users/:username of a user a site lists: the spec\'s 200, and the site keeps the name, which lets no one else in', async ({ t }) => {
  const blog = await managedSite(t, 'blog');
  await seedPortalUsers(t, 'alice', 'bob');
  assert.is((await t.call('PATCH', `/api/sites/${blog.id}`, { body: { allowedUsers: ['alice'] } })).status, 200);
  assert.equal(await t.call('DELETE', '/api/users/alice').then((r) => [r.status, r.body]), [200, { ok: true }]);
  assert.equal(t.services.store.sites.value[0]?.allowedUsers, ['alice'], 'not emptied into "every signed-in user"');
  // a later save of the list checks it again: the name that is gone is named
  const again = await t.call('PATCH', `/api/sites/${blog.id}`, { body: { allowedUsers: ['alice', 'bob'] } });
  assert.equal([again.status, again.body.error], [400, "Unknown user 'alice'"]);
  assert.is((await t.call('PATCH', `/api/sites/${blog.id}`, { body: { allowedUsers: ['bob'] } })).status, 200);
});

s('DELETE removes the vhost, the directory with its files and the record; the certificate stays', async ({ t }) => {
  const site = await managedSite(t, 'blog');
  writeFileSync(join(site.rootPath, 'index.html'), '<h1>hi</h1>');
  const res = await t.call('DELETE', `/api/sites/${site.id}`);
  assert.equal([res.status, res.body], [200, { ok: true }]);
  assert.is((await siteVhostState(t, `blog.${DOMAIN}`)).written, false);
  assert.not.ok(existsSync(site.rootPath));
  assert.equal(t.services.store.sites.value, []);
  assert.ok(await t.services.system.certs.has(`blog.${DOMAIN}`));
  assert.equal((await t.call('DELETE', `/api/sites/${site.id}`)).body, { error: 'Site not found' });
});

s('DELETE of a protected site drops its portal rule', async ({ t }) => {
  const site = await managedSite(t, 'blog', { autheliaProtected: true });
  await t.call('DELETE', `/api/sites/${site.id}`);
  assert.equal(t.sandbox.eventsOf('authPortal.setAccessRules').at(-1)?.detail, { rules: [] });
});

s('DELETE of a custom site whose DNS was never verified leaves nginx alone (no certificate, no vhost) and removes directory and record', async ({ t }) => {
  const { body } = await createSite(t, { name: 'shop', type: 'custom', customDomain: 'shop.customer.example' });
  t.sandbox.failNext('proxy.test', 'nginx: [emerg] x');
  const res = await t.call('DELETE', `/api/sites/${body.site.id}`);
  assert.equal([res.status, res.body], [200, { ok: true }]);
  assert.not.ok(existsSync(body.site.rootPath));
  assert.equal(t.services.store.sites.value, []);
});

s('DELETE: a failed nginx step answers 500 "Failed to delete site" and keeps files and record', async ({ t }) => {
  const site = await managedSite(t, 'blog');
  t.sandbox.failNext('proxy.test', 'nginx: [emerg] x');
  const res = await t.call('DELETE', `/api/sites/${site.id}`);
  assert.is(res.status, 500);
  assert.is(res.body.error, 'Failed to delete site');
  assert.ok(res.body.details.startsWith('Nginx configuration failed: '));
  assert.ok(existsSync(site.rootPath));
  assert.is(t.services.store.sites.value.length, 1);
});

s('verify-dns: 400 for managed sites, 404 for unknown ones', async ({ t }) => {
  const site = await managedSite(t, 'blog');
  assert.equal((await t.call('POST', `/api/sites/${site.id}/verify-dns`)).body, { error: 'DNS verification is only needed for custom domains' });
  const missing = await t.call('POST', `/api/sites/${MISSING}/verify-dns`);
  assert.equal([missing.status, missing.body], [404, { error: 'Site not found' }]);
});

s('verify-dns: ok false with what the name resolves to, then live once it points at the host', async ({ t }) => {
  const { body } = await createSite(t, { name: 'shop', type: 'custom', customDomain: 'shop.customer.example' });
  const id = body.site.id;
  const unresolved = await t.call('POST', `/api/sites/${id}/verify-dns`);
  assert.is(unresolved.status, 200);
  assert.equal({ ...unresolved.body, message: 'x' }, { ok: false, fqdn: 'shop.customer.example', expectedIp: '203.0.113.10', resolvedIps: [], message: 'x' });
  t.sandbox.setDns('shop.customer.example', ['198.51.100.4']);
  const elsewhere = await t.call('POST', `/api/sites/${id}/verify-dns`);
  assert.equal(elsewhere.body.resolvedIps, ['198.51.100.4']);
  assert.match(elsewhere.body.message, '198.51.100.4');
  t.sandbox.setDns('shop.customer.example', ['203.0.113.10']);
  const live = await t.call('POST', `/api/sites/${id}/verify-dns`);
  assert.is(live.body.ok, true);
  assert.ok(await t.services.system.certs.has('shop.customer.example'));
  assert.ok((await siteVhostState(t, 'shop.customer.example')).enabled);
  const stored = defined(t.services.store.sites.value[0], 'the stored site');
  assert.equal([stored.dnsVerified, stored.certIssued], [true, true]);
  const again = await t.call('POST', `/api/sites/${id}/verify-dns`);
  assert.equal(again.body, { ok: true, message: 'DNS already verified and certificate issued' });
});

s('verify-dns: the two 500s, and the record stays unverified', async ({ t }) => {
  const { body } = await createSite(t, { name: 'shop', type: 'custom', customDomain: 'shop.customer.example' });
  t.sandbox.setDns('shop.customer.example', ['203.0.113.10']);
  t.sandbox.failNext('certs.issue', 'rate limited');
  const cert = await t.call('POST', `/api/sites/${body.site.id}/verify-dns`);
  assert.equal([cert.status, cert.body], [500, { error: 'DNS verified but certificate issuance failed', details: 'rate limited' }]);
  t.sandbox.failNext('proxy.test', 'nginx: [emerg] y');
  const nginx = await t.call('POST', `/api/sites/${body.site.id}/verify-dns`);
  assert.is(nginx.status, 500);
  assert.is(nginx.body.error, 'Certificate issued but nginx configuration failed');
  const stored = defined(t.services.store.sites.value[0], 'the stored site');
  assert.equal([stored.dnsVerified, stored.certIssued], [false, false]);
  assert.is((await siteVhostState(t, 'shop.customer.example')).written, false);
});

s('settings, delete and verify-dns are admin-only', async ({ t }) => {
  const site = await managedSite(t, 'blog');
  await t.addAgent('bot', ['sites:read', 'sites:write'], ['blog']);
  const as = { agent: 'bot' };
  for (const [method, path, body] of [
    ['PATCH', `/api/sites/${site.id}`, { spaMode: true }],
    ['DELETE', `/api/sites/${site.id}`, undefined],
    ['POST', `/api/sites/${site.id}/verify-dns`, undefined],
  ] as const) {
    const res = await t.call(method, path, { as, body });
    assert.equal([res.status, res.body], [403, { error: 'Insufficient certificate scope' }], `${method} ${path}`);
  }
});

s.run();
