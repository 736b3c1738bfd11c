// Races around the wildcard mode's shared tunnels' server and the switch itself, each played on the
// sandbox with a controlled interleaving: a proxy change (or a certificate order) held until the
// test lets it go. Tunnels and sites share the switch's gate (lib/shared-gate.ts).
// Not a unit test: each "still waiting" check gives the held side 300 ms of real time to go wrong.
import { readFile, readlink, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { provisionedStack } from '../../../../lib/host-state/desired.ts';
import { writeStack } from '../../../../lib/host-state/stack.ts';
import { stackHosts } from '../../../../lib/stack-hosts.ts';
import { sandboxPaths } from '../../../../lib/system/sandbox-system.ts';
import { createTestApp } from '../../../../lib/testing.ts';
import type { VhostChange } from '../../../../lib/system/types.ts';
import { createTunnel, DOMAIN, tunnelApp, upstreamPort, type TunnelTestApp } from '../../../unit/tunnels/helpers.ts';
import { isRouteText } from '../../../../lib/system/proxy/templates.ts';

const SECRET = 'c2VjcmV0LWtleS1mb3ItdGVzdHM=';
const WILDCARD = { mode: 'wildcard', provider: 'rfc2136', credentials: { server: '127.0.0.1', port: 15353, name: 'certbot-key', secret: SECRET }, propagationSeconds: 0 };

const exists = (path: string) => stat(path).then(() => true, () => false);
const vhostText = (t: TunnelTestApp, fqdn: string) => readFile(join(sandboxPaths(t.services.store.dataDir).sitesAvailable, `relay-app-${fqdn}.conf`), 'utf8');
const siteVhostText = (t: TunnelTestApp, fqdn: string) => readFile(join(sandboxPaths(t.services.store.dataDir).sitesAvailable, `relay-site-${fqdn}.conf`), 'utf8');
/** The certificate a vhost's text names. */
const namesCert = (t: TunnelTestApp, text: string, lineage: string) => text.includes(`ssl_certificate "${t.services.system.certs.paths(lineage).fullchain}";`);
const createSite = (t: TunnelTestApp, name: string) => t.call('POST', '/api/sites', { body: { name, type: 'managed' } });

/**
 * The next proxy change that `matches` is made, then held (the caller's next step waits) until
 * `release()`; `reached` resolves once it is held. `before`: held before it is made instead (its
 * text already rendered).
 */
function holdAfter(t: TunnelTestApp, matches: (changes: readonly VhostChange[]) => boolean, when: 'after' | 'before' = 'after') {
  const { proxy } = t.services.system;
  const apply = proxy.apply.bind(proxy);
  let release!: () => void;
  let reached!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const held = new Promise<void>((resolve) => (reached = resolve));
  let armed = true;
  proxy.apply = async (changes) => {
    const hold = armed && matches(changes);
    if (hold) armed = false;
    if (hold && when === 'before') {
      reached();
      await released;
    }
    const result = await apply(changes);
    if (hold && when === 'after') {
      reached();
      await released;
    }
    return result;
  };
  return { release, reached: held };
}
const puts = (fqdn: string) => (changes: readonly VhostChange[]) => changes.some((c) => c.op === 'put' && 'fqdn' in c.spec && c.spec.fqdn === fqdn);
/** Resolves with `promise`'s settling or after `ms`, whichever is first: a step that waits (as it should) does not hang the test. */
const settledOrWaiting = (promise: Promise<unknown>, ms = 300) => Promise.race([promise.then(() => 'settled', () => 'settled'), new Promise((resolve) => setTimeout(() => resolve('waiting'), ms))]);

/**
 * Starts `change` (answering `status`), holds it at its vhost change for `fqdn` (`when`), asks the
 * switch back to per-name meanwhile, then lets it go: whether the switch was still waiting while
 * the change was held, once both answered as they should.
 */
async function switchDuring(t: TunnelTestApp, fqdn: string, change: () => Promise<{ status: number; body: unknown }>, status: number, when: 'after' | 'before' = 'after'): Promise<unknown> {
  const hold = holdAfter(t, puts(fqdn), when);
  const changed = change();
  await hold.reached;
  const switched = t.call('PUT', '/api/settings/certificates', { body: { mode: 'per-name' } });
  const whileHeld = await settledOrWaiting(switched);
  hold.release();
  const answer = await changed;
  assert.is(answer.status, status, JSON.stringify(answer.body));
  const switchAnswer = await switched;
  assert.is(switchAnswer.status, 200, JSON.stringify(switchAnswer.body));
  return whileHeld;
}

const s = suite<{ t: TunnelTestApp }>('dns01: races around the mode switch and the shared tunnels\' server', {} as { t: TunnelTestApp });
s.before.each(async (ctx) => {
  ctx.t = await tunnelApp();
});
s.after.each(async (ctx) => {
  await ctx.t.close();
});

s('a switch back to per-name while a create runs: the switch waits, and the tunnel gets its own certificate, served from the shared server\'s map, no orphan route', async ({ t }) => {
  assert.is((await t.call('PUT', '/api/settings/certificates', { body: WILDCARD })).status, 200);
  const fqdn = `late.${DOMAIN}`;
  // the create's route is written (wildcard mode), its save still to come
  const whileHeld = await switchDuring(t, fqdn, () => createTunnel(t, 'late', 9100), 201);
  const paths = sandboxPaths(t.services.store.dataDir);
  assert.ok(await t.services.system.certs.has(fqdn), 'the tunnel has its own certificate');
  assert.ok(isRouteText(await vhostText(t, fqdn)), 'a route of the shared server');
  assert.ok(await exists(join(paths.routes, `relay-app-${fqdn}.conf`)), 'linked where the shared server\'s map reads it');
  const shared = await readFile(join(paths.sitesEnabled, `relay-tunnels-${DOMAIN}.conf`), 'utf8');
  assert.ok(shared.includes('ssl_certificate data:$relay_sni_pem0$relay_sni_pem1$relay_sni_pem2$relay_sni_pem3;'), 'the shared server gives each name its own certificate');
  assert.is(whileHeld, 'waiting', 'the switch waited for the create under way');
});

s('a create asked while a switch runs waits for it and is made in the new mode', async ({ t }) => {
  const hold = holdAfter(t, (changes) => changes.some((c) => c.op === 'put' && c.spec.kind === 'tunnels'));
  const switched = t.call('PUT', '/api/settings/certificates', { body: WILDCARD });
  await hold.reached;
  const create = createTunnel(t, 'during', 9101);
  const whileHeld = await settledOrWaiting(create);
  hold.release();
  assert.is((await switched).status, 200);
  assert.is((await create).status, 201);
  const paths = sandboxPaths(t.services.store.dataDir);
  assert.ok(await exists(join(paths.routes, `relay-app-during.${DOMAIN}.conf`)), 'a route of the shared server');
  assert.not.ok(await t.services.system.certs.has(`during.${DOMAIN}`), 'no certificate of its own issued');
  assert.is(whileHeld, 'waiting', 'the create waited for the switch');
});

/**
 * A port edit to 8081 held after its vhost write while an access change to `to` is asked: both
 * answer 200, and the vhost ends as the record says (the new port, the portal asked or not).
 */
async function portEditRacingAccess(t: TunnelTestApp, to: 'public' | 'authenticated'): Promise<string> {
  const id = (await createTunnel(t, 'app', 8080)).body.tunnel.id as string;
  if (to === 'authenticated') assert.is((await t.call('PUT', `/api/tunnels/${id}/access`, { body: { mode: 'public' } })).status, 200);
  const fqdn = `app.${DOMAIN}`;
  const hold = holdAfter(t, puts(fqdn));
  const edit = t.call('PATCH', `/api/tunnels/${id}/settings`, { body: { port: 8081 } });
  await hold.reached;
  const access = t.call('PUT', `/api/tunnels/${id}/access`, { body: { mode: to } });
  await settledOrWaiting(access);
  hold.release();
  assert.is((await edit).status, 200);
  assert.is((await access).status, 200);
  assert.equal([t.services.store.tunnels.get(id)!.port, t.services.store.tunnels.get(id)!.access?.mode], [8081, to]);
  const text = await vhostText(t, fqdn);
  // a route (`<fqdn> <port>;`) of the shared server, which asks the portal, or a public server of its own
  assert.is(upstreamPort(text), 8081, 'the new port');
  return text;
}

const asksPortal = (text: string) => isRouteText(text) || text.includes('auth_request');

s('a port edit racing an access change on the same tunnel: the vhost ends as the record says (public, new port)', async ({ t }) => {
  assert.not.ok(asksPortal(await portEditRacingAccess(t, 'public')), 'public: the portal is not asked');
});

s('the other way: an access change to authenticated racing a port edit never leaves the vhost public', async ({ t }) => {
  assert.ok(asksPortal(await portEditRacingAccess(t, 'authenticated')), 'the portal is asked, as the record says');
});

s('host repair sees a link in the wrong directory (a route in sites-enabled, a server in the routes directory) and moves it', async ({ t }) => {
  assert.is((await t.call('PUT', '/api/settings/certificates', { body: WILDCARD })).status, 200);
  const shared = (await createTunnel(t, 'app', 8080)).body.tunnel.id as string;
  const open = (await createTunnel(t, 'web', 8081)).body.tunnel.id as string;
  assert.is((await t.call('PUT', `/api/tunnels/${open}/access`, { body: { mode: 'public' } })).status, 200);
  const paths = sandboxPaths(t.services.store.dataDir);
  const route = `relay-app-app.${DOMAIN}.conf`;
  const server = `relay-app-web.${DOMAIN}.conf`;
  // each link moved into the other directory, as a switch cut short between its two moves would leave it
  assert.ok(await readlink(join(paths.routes, route)));
  await rename(join(paths.routes, route), join(paths.sitesEnabled, route));
  await rename(join(paths.sitesEnabled, server), join(paths.routes, server));
  const report = await t.services.tunnels.repairHost();
  assert.equal(report.failures, []);
  assert.equal([...report.repaired].sort(), [shared, open].sort());
  assert.ok(await exists(join(paths.routes, route)), 'the route is linked where the shared server reads it');
  assert.not.ok(await exists(join(paths.sitesEnabled, route)), 'and no longer as a server');
  assert.ok(await exists(join(paths.sitesEnabled, server)), 'the public tunnel\'s server is linked in sites-enabled');
  assert.not.ok(await exists(join(paths.routes, server)));
  assert.equal((await t.services.tunnels.repairHost()).repaired, [], 'in line now: nothing more to do');
});

s('wildcard chosen during provisioning after the stack is written: the shared server is written then, so the first tunnel\'s route is served', async () => {
  const t = await createTestApp();
  try {
    const { config, system } = t.services;
    const email = `ops@${DOMAIN}`;
    await config.update({ domain: DOMAIN, email, onboarding: { status: 'PROVISIONING' } });
    // onboarding's certificates and vhosts tasks, done in per-name mode
    for (const fqdn of Object.values(stackHosts(DOMAIN))) await system.certs.issue(fqdn, email);
    await writeStack(system.proxy, await provisionedStack(system.certs, DOMAIN, config.value), () => {});
    const put = await t.call('PUT', '/api/settings/certificates', { body: WILDCARD });
    assert.is(put.status, 200, JSON.stringify(put.body));
    await config.update({ onboarding: { status: 'COMPLETED' } });
    assert.is((await createTunnel(t, 'first', 9200)).status, 201);
    const paths = sandboxPaths(t.services.store.dataDir);
    assert.ok(await exists(join(paths.routes, `relay-app-first.${DOMAIN}.conf`)), 'the tunnel is a route');
    assert.ok(await exists(join(paths.sitesEnabled, `relay-tunnels-${DOMAIN}.conf`)), 'and the shared server that reads it is there');
  } finally {
    await t.close();
  }
});

s('a switch back to per-name while a site create runs: the switch waits; the site gets its own certificate and its vhost names it', async ({ t }) => {
  assert.is((await t.call('PUT', '/api/settings/certificates', { body: WILDCARD })).status, 200);
  const fqdn = `blog.${DOMAIN}`;
  // the create's vhost is written naming the wildcard lineage, its record still to come
  const whileHeld = await switchDuring(t, fqdn, () => createSite(t, 'blog'), 201);
  const { certs } = t.services.system;
  assert.ok(await certs.has(fqdn), 'the site has its own certificate');
  assert.not.ok(await certs.has(DOMAIN), 'the wildcard lineage is gone');
  const text = await siteVhostText(t, fqdn);
  assert.ok(namesCert(t, text, fqdn), 'its vhost names its own certificate');
  assert.not.ok(namesCert(t, text, DOMAIN), 'and not the wildcard lineage');
  assert.is(whileHeld, 'waiting', 'the switch waited for the create under way');
});

s('a site create asked while a switch to wildcard runs waits for it and is made in the new mode', async ({ t }) => {
  const hold = holdAfter(t, (changes) => changes.some((c) => c.op === 'put' && c.spec.kind === 'tunnels'));
  const switched = t.call('PUT', '/api/settings/certificates', { body: WILDCARD });
  await hold.reached;
  const create = createSite(t, 'during');
  const whileHeld = await settledOrWaiting(create);
  hold.release();
  assert.is((await switched).status, 200);
  assert.is((await create).status, 201);
  const fqdn = `during.${DOMAIN}`;
  assert.not.ok(await t.services.system.certs.has(fqdn), 'no certificate of its own issued');
  assert.ok(namesCert(t, await siteVhostText(t, fqdn), DOMAIN), 'its vhost names the wildcard lineage');
  assert.is(whileHeld, 'waiting', 'the create waited for the switch');
});

s('a switch back to per-name while a site update runs: the switch waits, then rewrites the updated vhost to name the site\'s own certificate', async ({ t }) => {
  assert.is((await t.call('PUT', '/api/settings/certificates', { body: WILDCARD })).status, 200);
  const id = (await createSite(t, 'docs')).body.site.id as string;
  const fqdn = `docs.${DOMAIN}`;
  // the update's vhost is rendered in wildcard mode, its write still to come
  const whileHeld = await switchDuring(t, fqdn, () => t.call('PATCH', `/api/sites/${id}`, { body: { spaMode: true } }), 200, 'before');
  const { certs } = t.services.system;
  assert.not.ok(await certs.has(DOMAIN), 'the wildcard lineage is gone');
  const text = await siteVhostText(t, fqdn);
  assert.ok(namesCert(t, text, fqdn), 'its vhost names its own certificate');
  assert.not.ok(namesCert(t, text, DOMAIN), 'and not the removed lineage');
  assert.ok(t.services.store.sites.get(id)!.spaMode, 'the update is kept');
  assert.is(whileHeld, 'waiting', 'the switch waited for the update under way');
});

s.run();
