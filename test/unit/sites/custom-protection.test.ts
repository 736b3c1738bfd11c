// Portal protection of custom-domain sites: the portal's one session cookie
// domain is the base domain, and Authelia 4.38's authz answers 400 (nginx: 500) for any host outside
// it. So protection is refused with a 400 that says why, and a protected site already stored outside
// the base domain is closed (403), never served unprotected and never a 500.
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import * as assert from 'uvu/assert';
import { sandboxPaths } from '../../../lib/system/sandbox-system.ts';
import { refreshVhosts } from '../../../lib/host-state/reconcile.ts';
import { putSiteVhost } from '../../../lib/sites/context.ts';
import type { SiteRecord } from '../../../lib/state/schemas.ts';
import { vhostChangesSchema } from '../../../lib/system/proxy/vhost-request.ts';
import { createSite, DOMAIN, seedPortalUsers, siteDirectories, siteSuite, type SiteTestApp } from './helpers.ts';

const s = siteSuite('sites: portal protection only where the portal cookie reaches');

const REFUSAL = `Portal protection is not available for 'shop.customer.example': the portal's session cookie covers only '${DOMAIN}' and its subdomains`;
const vhostText = (t: SiteTestApp, fqdn: string) => readFile(join(sandboxPaths(t.services.store.dataDir).sitesAvailable, `relay-site-${fqdn}.conf`), 'utf8');

s('POST of a protected custom site outside the base domain: 400 saying why; nothing is created', async ({ t }) => {
  const res = await createSite(t, { name: 'shop', type: 'custom', customDomain: 'shop.customer.example', autheliaProtected: true });
  assert.equal([res.status, res.body], [400, { error: REFUSAL }]);
  assert.equal(t.services.store.sites.value, []);
  assert.equal(siteDirectories(t), []);
  // the spec's own 400s come first
  const taken = await createSite(t, { name: 'shop', type: 'custom', customDomain: 'shop.customer.example' });
  assert.is(taken.status, 201);
  const again = await createSite(t, { name: 'shop', type: 'custom', customDomain: 'other.customer.example', autheliaProtected: true });
  assert.equal(again.body, { error: "Site name 'shop' is already in use" });
});

s('a custom domain under the base domain is within the cookie: protection is accepted', async ({ t }) => {
  const res = await createSite(t, { name: 'docs', type: 'custom', customDomain: `docs.team.${DOMAIN}`, autheliaProtected: true });
  assert.is(res.status, 201, JSON.stringify(res.body));
  assert.is(res.body.site.autheliaProtected, true);
});

s('PATCH autheliaProtected true on such a site: 400 saying why, record and portal untouched; other settings still change', async ({ t }) => {
  const { body } = await createSite(t, { name: 'shop', type: 'custom', customDomain: 'shop.customer.example' });
  const res = await t.call('PATCH', `/api/sites/${body.site.id}`, { body: { autheliaProtected: true, spaMode: true } });
  assert.equal([res.status, res.body], [400, { error: REFUSAL }]);
  assert.equal([t.services.store.sites.value[0]!.autheliaProtected, t.services.store.sites.value[0]!.spaMode], [false, false]);
  assert.is(t.sandbox.eventsOf('authPortal.setAccessRules').length, 0);
  const spa = await t.call('PATCH', `/api/sites/${body.site.id}`, { body: { spaMode: true, autheliaProtected: false } });
  assert.is(spa.status, 200);
  assert.is(spa.body.site.spaMode, true);
});

/** A live custom site stored protected, as an earlier release or a restored backup has it. */
async function storedProtected(t: SiteTestApp): Promise<SiteRecord> {
  const id = randomUUID();
  const site: SiteRecord = {
    id, name: 'shop', fqdn: 'shop.customer.example', type: 'custom', spaMode: false, autheliaProtected: true, allowedUsers: ['alice'],
    dnsVerified: true, certIssued: true, rootPath: t.services.system.siteStorage.dirOf(id), createdAt: new Date().toISOString(), totalSize: 0,
  };
  await t.services.system.siteStorage.create(id);
  await t.services.system.certs.issue(site.fqdn, `ops@${DOMAIN}`);
  await t.services.store.sites.update((list) => void list.push(site));
  // its vhost as that release wrote it: protected, asking the portal
  await t.services.system.proxy.apply([{ op: 'put', enabled: true, spec: { kind: 'site', fqdn: site.fqdn, root: site.rootPath, spaMode: false, protected: true } }]);
  return site;
}

s('a stored protected site outside the base domain is closed at start: 403 vhost, no portal rule, a warning', async ({ t }) => {
  const site = await storedProtected(t);
  assert.match(await vhostText(t, site.fqdn), 'auth_request');
  const refresh = await refreshVhosts(t.services);
  assert.equal(refresh, { rewritten: [`relay-site-${site.fqdn}.conf`], closed: [site.fqdn] });
  const text = await vhostText(t, site.fqdn);
  assert.match(text, 'return 403 "This site is protected, and the sign-in portal does not serve its domain.\\n";');
  assert.not.match(text, 'auth_request', 'no authz request, whose 400 nginx would make a 500');
  assert.not.match(text, `root "${site.rootPath}"`, 'its files are never served unprotected');
  assert.ok(t.services.log.recent(50).some((e) => e.level === 'warn' && e.message.includes(`site ${site.fqdn}: portal protection cannot work`)));
  // the root helper (host driver) takes the closed vhost too
  const request = vhostChangesSchema(dirname(site.rootPath)).safeParse([putSiteVhost(site, DOMAIN, t.services.config.value)]);
  assert.ok(request.success, JSON.stringify(request.error?.issues));
  // a rule change elsewhere leaves it out of the portal's rules
  const managed = await createSite(t, { name: 'blog', type: 'managed', autheliaProtected: true });
  await seedPortalUsers(t, 'bob');
  await t.call('PATCH', `/api/sites/${managed.body.site.id}`, { body: { allowedUsers: ['bob'] } });
  assert.equal(t.sandbox.eventsOf('authPortal.setAccessRules').at(-1)?.detail, { rules: [{ fqdn: `blog.${DOMAIN}`, allowedUsers: ['bob'] }] });
  // turning protection off opens it
  const open = await t.call('PATCH', `/api/sites/${site.id}`, { body: { autheliaProtected: false } });
  assert.is(open.status, 200);
  assert.match(await vhostText(t, site.fqdn), 'try_files $uri $uri/ =404;');
});

s('closed once: the next start neither rewrites nor reloads, and still warns', async ({ t }) => {
  const site = await storedProtected(t);
  await refreshVhosts(t.services);
  const reloads = t.sandbox.eventsOf('proxy.reload').length;
  const warnings = () => t.services.log.recent(100).filter((e) => e.level === 'warn' && e.message.includes(`site ${site.fqdn}: portal protection cannot work`)).length;
  const warned = warnings();
  assert.equal(await refreshVhosts(t.services), { rewritten: [], closed: [site.fqdn] });
  assert.is(t.sandbox.eventsOf('proxy.reload').length, reloads, 'no reload');
  assert.is(warnings(), warned + 1);
});

s('nothing to close: no vhost work at start', async ({ t }) => {
  await createSite(t, { name: 'blog', type: 'managed', autheliaProtected: true });
  const tests = t.sandbox.eventsOf('proxy.test').length;
  const reloads = t.sandbox.eventsOf('proxy.reload').length;
  assert.equal(await refreshVhosts(t.services), { rewritten: [], closed: [] });
  assert.is(t.sandbox.eventsOf('proxy.test').length, tests);
  assert.is(t.sandbox.eventsOf('proxy.reload').length, reloads);
});

s.run();
