import { existsSync } from 'node:fs';
import * as assert from 'uvu/assert';
import { createSite, DOMAIN, managedSite, siteDirectories, siteSuite, siteVhostState } from './helpers.ts';

const s = siteSuite('sites: create');

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

s('managed: 201 {ok, site} without allowedUsers; certificate, vhost and directory exist, record saved', async ({ t }) => {
  const { status, body } = await createSite(t, { name: 'blog', type: 'managed', spaMode: true });
  assert.is(status, 201);
  assert.is(body.ok, true);
  assert.is(body.message, undefined);
  const { site } = body;
  assert.match(site.id, UUID_V4);
  assert.is(site.allowedUsers, undefined);
  assert.equal({ ...site, id: 'x', createdAt: 'x', rootPath: 'x' }, {
    id: 'x', name: 'blog', fqdn: `blog.${DOMAIN}`, type: 'managed', spaMode: true, autheliaProtected: false,
    dnsVerified: true, certIssued: true, rootPath: 'x', createdAt: 'x', totalSize: 0,
  });
  assert.ok(site.rootPath.endsWith(`/${site.id}`));
  assert.ok(existsSync(site.rootPath));
  assert.ok(await t.services.system.certs.has(`blog.${DOMAIN}`));
  assert.equal(await siteVhostState(t, `blog.${DOMAIN}`), { name: `relay-site-blog.${DOMAIN}.conf`, written: true, enabled: true });
  assert.equal(t.services.store.sites.value, [{ ...site, allowedUsers: [] }]);
});

s('custom: 201 with message; directory and record only, dnsVerified and certIssued false', async ({ t }) => {
  const { status, body } = await createSite(t, { name: 'shop', type: 'custom', customDomain: 'shop.customer.example' });
  assert.is(status, 201);
  assert.type(body.message, 'string');
  assert.is(body.site.fqdn, 'shop.customer.example');
  assert.is(body.site.dnsVerified, false);
  assert.is(body.site.certIssued, false);
  assert.ok(existsSync(body.site.rootPath));
  assert.is(t.sandbox.eventsOf('certs.issue').length, 0);
  assert.is((await siteVhostState(t, 'shop.customer.example')).written, false);
});

const invalid: Array<[string, unknown, string]> = [
  ['missing name', { type: 'managed' }, 'name'],
  ['empty name', { name: '', type: 'managed' }, 'name'],
  ['uppercase', { name: 'Blog', type: 'managed' }, 'name'],
  ['leading hyphen', { name: '-blog', type: 'managed' }, 'name'],
  ['101 chars', { name: 'a'.repeat(101), type: 'managed' }, 'name'],
  ['bad type', { name: 'blog', type: 'other' }, 'type'],
  ['missing type', { name: 'blog' }, 'type'],
  ['domain with space', { name: 'blog', type: 'custom', customDomain: 'a b.example' }, 'customDomain'],
  ['domain 254 chars', { name: 'blog', type: 'custom', customDomain: 'a'.repeat(254) }, 'customDomain'],
  ['spaMode not boolean', { name: 'blog', type: 'managed', spaMode: 'yes' }, 'spaMode'],
  // the spec's pattern lets these through, but no A record or certificate can be had for them
  ['IP address as domain', { name: 'blog', type: 'custom', customDomain: '203.0.113.10' }, 'customDomain'],
  ['all-digit last label', { name: 'blog', type: 'custom', customDomain: 'blog.example.123' }, 'customDomain'],
  ['single label', { name: 'blog', type: 'custom', customDomain: 'localhost' }, 'customDomain'],
  ['empty label', { name: 'blog', type: 'custom', customDomain: 'a..example' }, 'customDomain'],
];
s('400 Validation failed naming the field; nothing created', async ({ t }) => {
  for (const [label, body, path] of invalid) {
    const res = await createSite(t, body as Record<string, unknown>);
    assert.is(res.status, 400, label);
    assert.is(res.body.error, 'Validation failed', label);
    assert.ok(res.body.details.issues.some((i: { path: string }) => i.path === path), `${label}: ${JSON.stringify(res.body.details)}`);
  }
  assert.equal(t.services.store.sites.value, []);
});

s('a managed name that makes an FQDN over 253 characters is a validation failure', async ({ t }) => {
  await t.services.config.update({ domain: `${'d'.repeat(60)}.${'e'.repeat(60)}.${'f'.repeat(60)}.test` });
  const res = await createSite(t, { name: 'n'.repeat(70), type: 'managed' });
  assert.is(res.status, 400);
  assert.is(res.body.error, 'Validation failed');
});

s("the spec's 400 messages, in its order", async ({ t }) => {
  await managedSite(t, 'blog');
  await t.call('POST', '/api/tunnels', { body: { subdomain: 'app', port: 8080 } });
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ name: 'x', type: 'custom' }, 'Custom domain is required for custom type sites'],
    [{ name: 'blog', type: 'managed' }, "Site name 'blog' is already in use"],
    [{ name: 'blog', type: 'custom', customDomain: 'other.example' }, "Site name 'blog' is already in use"],
    [{ name: 'www', type: 'managed' }, "Name 'www' is reserved"],
    [{ name: 'app', type: 'managed' }, "Name 'app' is already in use by a tunnel"],
    [{ name: 'other', type: 'custom', customDomain: `blog.${DOMAIN}` }, `Domain 'blog.${DOMAIN}' is already in use by another site`],
    [{ name: 'other', type: 'custom', customDomain: `app.${DOMAIN}` }, `Domain 'app.${DOMAIN}' is already in use by a tunnel`],
    [{ name: 'other', type: 'custom', customDomain: `panel.${DOMAIN}` }, `Domain 'panel.${DOMAIN}' is reserved`],
    [{ name: 'other', type: 'custom', customDomain: DOMAIN }, `Domain '${DOMAIN}' is reserved`],
  ];
  for (const [body, error] of cases) {
    const res = await createSite(t, body);
    assert.is(res.status, 400, error);
    assert.equal(res.body, { error }, error);
  }
  assert.is(t.services.store.sites.value.length, 1);
});

s('reserved names are allowed for custom sites (the name is not a subdomain there)', async ({ t }) => {
  assert.is((await createSite(t, { name: 'www', type: 'custom', customDomain: 'www.customer.example' })).status, 201);
});

s('400 before onboarding set a domain and email', async ({ t }) => {
  await t.services.config.update({ domain: null, email: null });
  const res = await createSite(t, { name: 'blog', type: 'managed' });
  assert.equal([res.status, res.body], [400, { error: 'Domain and email must be configured before creating sites' }]);
});

s('tunnel creation refuses a subdomain held by a site', async ({ t }) => {
  await managedSite(t, 'blog');
  const res = await t.call('POST', '/api/tunnels', { body: { subdomain: 'blog', port: 8081 } });
  assert.equal([res.status, res.body], [400, { error: "Subdomain 'blog' is already in use" }]);
});

const failures: Array<[string, string, boolean]> = [
  ['certs.issue', 'Certificate issuance failed: ', false],
  ['proxy.test', 'Nginx configuration failed: ', false],
  ['siteStorage.create', 'Directory creation failed: ', true],
];
for (const [point, prefix, hadVhost] of failures) {
  s(`managed: a failing ${point} answers 500 "${prefix}..." and leaves no vhost, directory or record`, async ({ t }) => {
    t.sandbox.failNext(point as never, 'boom');
    const res = await createSite(t, { name: 'blog', type: 'managed' });
    assert.is(res.status, 500);
    assert.is(res.body.error, 'Failed to create site');
    assert.ok(res.body.details.startsWith(prefix), res.body.details);
    assert.is((await siteVhostState(t, `blog.${DOMAIN}`)).written, false);
    assert.equal(siteDirectories(t), []);
    assert.equal(t.services.store.sites.value, []);
    if (hadVhost) assert.is(t.sandbox.eventsOf('proxy.reload').length, 2, 'the vhost was written, then removed');
    // the claim was released: the same name works now
    assert.is((await createSite(t, { name: 'blog', type: 'managed' })).status, 201);
  });
}

s('a failed save undoes the directory and the vhost: "State persistence failed: ..."', async ({ t }) => {
  const sites = t.services.store.sites;
  const original = sites.edit.bind(sites);
  sites.edit = (() => Promise.reject(new Error('disk full'))) as typeof sites.edit;
  const res = await createSite(t, { name: 'blog', type: 'managed' });
  sites.edit = original;
  assert.is(res.status, 500);
  assert.is(res.body.details, 'State persistence failed: disk full');
  assert.is((await siteVhostState(t, `blog.${DOMAIN}`)).written, false);
  assert.equal(siteDirectories(t), []);
});

s('20 concurrent creates of one name give exactly one 201', async ({ t }) => {
  const results = await Promise.all(Array.from({ length: 20 }, () => createSite(t, { name: 'race', type: 'managed' })));
  assert.is(results.filter((r) => r.status === 201).length, 1);
  assert.ok(results.filter((r) => r.status !== 201).every((r) => r.status === 400 && r.body.error === "Site name 'race' is already in use"));
  assert.is(t.services.store.sites.value.length, 1);
});

s('only admins create sites: an agent with sites:write gets 403', async ({ t }) => {
  await t.addAgent('bot', ['sites:read', 'sites:write'], ['blog']);
  const res = await createSite(t, { name: 'blog', type: 'managed' }, { as: { agent: 'bot' } });
  assert.equal([res.status, res.body], [403, { error: 'Insufficient certificate scope' }]);
});

s.run();
