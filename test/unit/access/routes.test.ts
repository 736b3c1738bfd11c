// The access routes through the app on the sandbox: admin-only changes applied all or nothing
// (record, portal rules and restart, the vhost of a public tunnel), agents kept to the default,
// groups renamed and deleted everywhere, a deleted user taken off every rule, the audit lines.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sandboxPaths } from '../../../lib/system/sandbox/paths.ts';
import { isRouteText } from '../../../lib/system/proxy/templates.ts';
import { deferred } from '../../helpers/deferred.ts';
import { seedPortalUsers } from '../sites/helpers.ts';
import { createTunnel, DOMAIN, tunnelApp, type TunnelTestApp } from '../tunnels/helpers.ts';

const s = suite<{ t: TunnelTestApp; id: string }>('access routes', {} as { t: TunnelTestApp; id: string });
s.before.each(async (ctx) => {
  ctx.t = await tunnelApp();
  await seedPortalUsers(ctx.t, 'root', 'alice', 'bob');
  await setGroups(ctx.t, { root: ['admins'], alice: ['ops'], bob: ['dev'] });
  // the portal's configuration, as provisioning writes it
  const { authPortal } = ctx.t.services.system;
  await authPortal.install({ domain: DOMAIN, users: await authPortal.readUsers() });
  ctx.id = (await createTunnel(ctx.t, 'app', 8080)).body.tunnel.id;
});
s.after.each(async ({ t }) => t.close());

async function setGroups(t: TunnelTestApp, groups: Record<string, string[]>) {
  const { authPortal } = t.services.system;
  await authPortal.writeUsers((await authPortal.readUsers()).map((u) => ({ ...u, groups: groups[u.username] ?? u.groups })));
}

/** The access_control the sandbox's portal configuration holds now. */
function portalConfig(t: TunnelTestApp): { default_policy: string; rules: Array<Record<string, unknown>> } {
  const text = readFileSync(join(sandboxPaths(t.services.store.dataDir).authelia, 'configuration.yml'), 'utf8');
  return JSON.parse(text.replace(/^#.*$/gm, '')).access_control;
}

function vhostText(t: TunnelTestApp, fqdn: string): string {
  return readFileSync(join(sandboxPaths(t.services.store.dataDir).sitesAvailable, `relay-app-${fqdn}.conf`), 'utf8');
}

/**
 * Whether nginx asks the portal for the name: its own server's check, or as a route (`<fqdn> <port>;`)
 * of the domain's shared server, whose template always carries it (the templates' tests say so).
 */
function asksPortal(t: TunnelTestApp, fqdn: string): boolean {
  const text = vhostText(t, fqdn);
  return isRouteText(text) || /auth_request/.test(text);
}

const FQDN = `app.${DOMAIN}`;
const RESTRICTED = { mode: 'restricted', users: ['alice'], groups: ['dev'], rules: [{ policy: 'bypass', resources: ['^/hook$'], methods: ['POST'] }] };

s('GET: a tunnel without access answers the default', async ({ t, id }) => {
  const r = await t.call('GET', `/api/tunnels/${id}/access`);
  assert.equal([r.status, r.body.access], [200, { mode: 'authenticated', users: [], groups: [], rules: [] }]);
  assert.equal(r.body.app, { kind: 'tunnel', id, fqdn: FQDN, name: 'app' });
});

s('PUT as admin: stored, rendered into the portal (rules first), the portal restarted, an audit line', async ({ t, id }) => {
  const restarts = t.sandbox.eventsOf('authPortal.restart').length;
  const r = await t.call('PUT', `/api/tunnels/${id}/access`, { body: RESTRICTED });
  assert.is(r.status, 200, JSON.stringify(r.body));
  assert.equal(t.services.store.tunnels.get(id)?.access, RESTRICTED);
  assert.equal(portalConfig(t).rules, [
    { domain: [FQDN], policy: 'bypass', resources: ['^/hook$'], methods: ['POST'] },
    { domain: [FQDN], policy: 'two_factor', subject: ['user:alice', 'group:dev', 'group:admins'] },
    { domain: [FQDN], policy: 'deny' },
  ]);
  assert.is(t.sandbox.eventsOf('authPortal.restart').length, restarts + 1);
  await t.services.audit.flush?.();
  const audit = await t.call('GET', '/api/audit');
  const lines = JSON.stringify(audit.body);
  assert.match(lines, /access\.changed/);
  assert.match(lines, /restricted to 1 user\(s\), 1 group\(s\); 1 rule\(s\)/);
});

s('PUT refuses unknown users and groups, and users outside a restriction; nothing changes', async ({ t, id }) => {
  const before = JSON.stringify(portalConfig(t));
  const user = await t.call('PUT', `/api/tunnels/${id}/access`, { body: { mode: 'restricted', users: ['mallory'] } });
  assert.equal([user.status, user.body], [400, { error: "Unknown user 'mallory'", details: { users: ['mallory'] } }]);
  const group = await t.call('PUT', `/api/tunnels/${id}/access`, { body: { mode: 'restricted', groups: ['nope'] } });
  assert.equal([group.status, group.body.details], [400, { groups: ['nope'] }]);
  const stray = await t.call('PUT', `/api/tunnels/${id}/access`, { body: { mode: 'authenticated', users: ['alice'] } });
  assert.is(stray.status, 400);
  const re2 = await t.call('PUT', `/api/tunnels/${id}/access`, { body: { rules: [{ policy: 'bypass', resources: ['(?<=a)b'] }] } });
  assert.is(re2.status, 400);
  assert.match(JSON.stringify(re2.body), /lookbehind/);
  assert.is(t.services.store.tunnels.get(id)?.access, undefined);
  assert.is(JSON.stringify(portalConfig(t)), before);
});

s('all or nothing: a portal that fails to restart leaves the record and its rules as they were', async ({ t, id }) => {
  t.sandbox.failNext('authPortal.restart', 'authelia exited');
  const r = await t.call('PUT', `/api/tunnels/${id}/access`, { body: RESTRICTED });
  assert.equal([r.status, r.body.error], [500, 'Failed to change tunnel access']);
  assert.match(r.body.details, /Auth portal configuration failed: authelia exited/);
  assert.is(t.services.store.tunnels.get(id)?.access, undefined);
  assert.equal(portalConfig(t).rules, []);
});

s('public: the vhost stops asking the portal (and back); a failed vhost puts the record back', async ({ t, id }) => {
  assert.ok(asksPortal(t, FQDN));
  const open = await t.call('PUT', `/api/tunnels/${id}/access`, { body: { mode: 'public' } });
  assert.is(open.status, 200);
  assert.match(open.body.warning, /PUBLIC/);
  assert.not.ok(asksPortal(t, FQDN));
  assert.match(vhostText(t, FQDN), /proxy_set_header Remote-User "";/);
  assert.equal(portalConfig(t).rules, [], 'the portal is never asked: no rule for it');
  const closed = await t.call('PUT', `/api/tunnels/${id}/access`, { body: { mode: 'authenticated' } });
  assert.is(closed.status, 200);
  assert.ok(asksPortal(t, FQDN));
  t.sandbox.failNext('proxy.apply', 'nginx -t failed');
  const failed = await t.call('PUT', `/api/tunnels/${id}/access`, { body: { mode: 'public' } });
  assert.is(failed.status, 500);
  assert.is(t.services.store.tunnels.get(id)?.access?.mode, 'authenticated');
  assert.ok(asksPortal(t, FQDN));
});

s('agents: create tunnels with the default access only; no PUT', async ({ t, id }) => {
  await t.addAgent('bot', ['tunnels:read', 'tunnels:write']);
  const plain = await t.call('POST', '/api/tunnels', { as: { agent: 'bot' }, body: { subdomain: 'agentapp', port: 9001 } });
  assert.is(plain.status, 201);
  const withAccess = await t.call('POST', '/api/tunnels', { as: { agent: 'bot' }, body: { subdomain: 'agentpub', port: 9002, access: { mode: 'public' } } });
  assert.equal(withAccess.status, 403);
  assert.is(t.services.store.tunnels.value.some((x) => x.subdomain === 'agentpub'), false);
  const put = await t.call('PUT', `/api/tunnels/${id}/access`, { as: { agent: 'bot' }, body: { mode: 'public' } });
  assert.is(put.status, 403);
  assert.is((await t.call('GET', `/api/tunnels/${id}/access`, { as: { agent: 'bot' } })).status, 200);
  const admin = await t.call('POST', '/api/tunnels', { body: { subdomain: 'team', port: 9003, access: { mode: 'restricted', users: ['bob'] } } });
  assert.is(admin.status, 201, JSON.stringify(admin.body));
  assert.equal(admin.body.tunnel.access.users, ['bob']);
});

s('a create with access is all or nothing: an unknown user makes no tunnel; a portal that fails leaves no tunnel open to everyone', async ({ t }) => {
  const count = () => t.services.store.tunnels.value.length;
  const before = count();
  const unknown = await t.call('POST', '/api/tunnels', { body: { subdomain: 'team', port: 9003, access: { mode: 'restricted', users: ['nobody'] } } });
  assert.is(unknown.status, 400, JSON.stringify(unknown.body));
  assert.is(count(), before, 'no tunnel made');
  assert.equal(t.sandbox.eventsOf('certs.issue').filter((e) => JSON.stringify(e.detail).includes('team.')), [], 'no certificate asked for');
  t.sandbox.failNext('authPortal.restart', 'authelia exited');
  const failed = await t.call('POST', '/api/tunnels', { body: { subdomain: 'team', port: 9003, access: { mode: 'restricted', users: ['bob'] } } });
  assert.equal([failed.status, failed.body.error], [500, 'Failed to change tunnel access']);
  assert.is(count(), before, 'the tunnel made first is deleted again');
  assert.is((await t.services.system.proxy.state(`relay-app-team.${DOMAIN}.conf`)).written, false, 'and its vhost with it');
  const again = await t.call('POST', '/api/tunnels', { body: { subdomain: 'team', port: 9003, access: { mode: 'restricted', users: ['bob'] } } });
  assert.is(again.status, 201, 'its name and port are free again');
});

s('a deleted tunnel takes its rules out of the portal: made again under its name, it has the default', async ({ t, id }) => {
  const put = await t.call('PUT', `/api/tunnels/${id}/access`, { body: RESTRICTED });
  assert.is(put.status, 200, JSON.stringify(put.body));
  assert.ok(portalConfig(t).rules.length > 0, 'the restriction is in the portal before the delete');
  assert.is((await t.call('DELETE', `/api/tunnels/${id}`)).status, 200);
  assert.equal(portalConfig(t).rules, []);
  const again = await createTunnel(t, 'app', 8080);
  assert.is(again.status, 201);
  assert.equal(portalConfig(t).rules, []);
});

s('an access change while a port edit waits on nginx survives the edit\'s save', async ({ t, id }) => {
  const { proxy } = t.services.system;
  const apply = proxy.apply.bind(proxy);
  const held = deferred();
  let holding = true;
  proxy.apply = async (changes) => { if (holding) { holding = false; await held.promise; } return apply(changes); };
  const edit = t.call('PATCH', `/api/tunnels/${id}/settings`, { body: { port: 8090 } });
  const put = await t.call('PUT', `/api/tunnels/${id}/access`, { body: RESTRICTED });
  assert.is(put.status, 200);
  held.resolve();
  assert.is((await edit).status, 200);
  assert.equal([t.services.store.tunnels.get(id)?.port, t.services.store.tunnels.get(id)?.access], [8090, RESTRICTED]);
});

s('a deleted user goes from every rule; the restriction stays one (admins only)', async ({ t, id }) => {
  await t.call('PUT', `/api/tunnels/${id}/access`, { body: { mode: 'restricted', users: ['alice'] } });
  const del = await t.call('DELETE', '/api/users/alice');
  assert.is(del.status, 200);
  assert.equal(t.services.store.tunnels.get(id)?.access, { mode: 'restricted', users: [], groups: [], rules: [] });
  assert.equal(portalConfig(t).rules, [
    { domain: [FQDN], policy: 'two_factor', subject: ['group:admins'] },
    { domain: [FQDN], policy: 'deny' },
  ]);
});

s('groups: listed with members and apps; renamed and deleted in users and rules; members set', async ({ t, id }) => {
  await t.call('PUT', `/api/tunnels/${id}/access`, { body: { mode: 'restricted', groups: ['ops'] } });
  const list = await t.call('GET', '/api/access/groups');
  const ops = list.body.groups.find((g: { name: string }) => g.name === 'ops');
  assert.equal(ops, { name: 'ops', members: ['alice'], apps: [{ kind: 'tunnel', id, fqdn: FQDN, name: 'app' }] });
  assert.is((await t.call('PATCH', '/api/access/groups/ops', { body: { name: 'operators' } })).status, 200);
  assert.equal(t.services.store.tunnels.get(id)?.access?.groups, ['operators']);
  assert.equal((await t.services.system.authPortal.readUsers()).find((u) => u.username === 'alice')?.groups, ['operators']);
  assert.match(JSON.stringify(portalConfig(t).rules), /group:operators/);
  assert.is((await t.call('PUT', '/api/access/groups/operators/members', { body: { users: ['bob'] } })).status, 200);
  const users = await t.services.system.authPortal.readUsers();
  assert.equal([users.find((u) => u.username === 'alice')?.groups, users.find((u) => u.username === 'bob')?.groups], [[], ['dev', 'operators']]);
  assert.is((await t.call('DELETE', '/api/access/groups/operators')).status, 200);
  assert.equal(t.services.store.tunnels.get(id)?.access?.groups, []);
  assert.not.match(JSON.stringify(portalConfig(t).rules), /operators/);
  assert.is((await t.call('DELETE', '/api/access/groups/operators')).status, 404);
  assert.is((await t.call('DELETE', '/api/access/groups/admins')).status, 400);
});

s('who can reach what: per user, with the reason', async ({ t, id }) => {
  await t.call('PUT', `/api/tunnels/${id}/access`, { body: { mode: 'restricted', groups: ['dev'] } });
  await createTunnel(t, 'wiki', 8081);
  const bob = await t.call('GET', '/api/access/users/bob');
  assert.equal(bob.body.apps.map((a: { fqdn: string; via: string }) => [a.fqdn, a.via]).sort(), [[FQDN, 'group:dev'], [`wiki.${DOMAIN}`, 'signed in']]);
  const alice = await t.call('GET', '/api/access/users/alice');
  assert.equal(alice.body.apps.map((a: { fqdn: string }) => a.fqdn), [`wiki.${DOMAIN}`]);
  assert.is((await t.call('GET', '/api/access/users/nobody')).status, 404);
});

s('sites: allowedUsers read as a restriction; PUT keeps allowedUsers in step', async ({ t }) => {
  const site = (await t.call('POST', '/api/sites', { body: { name: 'blog', type: 'managed' } })).body.site;
  await t.call('PATCH', `/api/sites/${site.id}`, { body: { autheliaProtected: true, allowedUsers: ['bob'] } });
  const got = await t.call('GET', `/api/sites/${site.id}/access`);
  assert.equal([got.body.access, got.body.protected], [{ mode: 'restricted', users: ['bob'], groups: [], rules: [] }, true]);
  const put = await t.call('PUT', `/api/sites/${site.id}/access`, { body: { mode: 'restricted', groups: ['ops'] } });
  assert.is(put.status, 200, JSON.stringify(put.body));
  assert.equal(t.services.store.sites.get(site.id)?.allowedUsers, []);
  assert.match(JSON.stringify(portalConfig(t).rules), /group:ops/);
  assert.is((await t.call('PUT', `/api/sites/${site.id}/access`, { body: { mode: 'public' } })).status, 400);
  // the spec's PATCH of allowedUsers still says who may sign in, the access's groups kept
  assert.is((await t.call('PATCH', `/api/sites/${site.id}`, { body: { allowedUsers: ['alice'] } })).status, 200);
  assert.equal(t.services.store.sites.get(site.id)?.access, { mode: 'restricted', users: ['alice'], groups: ['ops'], rules: [] });
  assert.match(JSON.stringify(portalConfig(t).rules), /user:alice/);
});

s('the refused page names the app and the admin to ask', async ({ t }) => {
  const r = await t.fetch('http://panel.test/api/access/refused', { headers: { 'x-forwarded-host': FQDN } });
  const page = await r.text();
  assert.is(r.status, 200);
  assert.match(page, /No access to app/);
  assert.match(page, /mailto:root@example\.test/);
  // the route is a public location of the panel's vhost too, whose host is the panel's: no contact there
  const panel = await (await t.fetch('http://panel.test/api/access/refused', { headers: { 'x-forwarded-host': `panel.${DOMAIN}` } })).text();
  assert.not.match(panel, /mailto:|root@/);
});

s.run();
