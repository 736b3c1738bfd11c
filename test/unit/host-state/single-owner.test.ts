// Start-up, restore, the tunnel repair and onboarding's stack write what the desired host state
// (lib/host-state/desired.ts) lists, and keep no list of their own. From the records, the three
// start-up-like paths reach the same set on a wiped host; steered by a desired state that differs
// from the records (a site and a tunnel no record names, a tunnel record left out), each follows
// the desired state, where a path that still read the records itself would write the records'.
import { randomUUID } from 'node:crypto';
import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { desiredHost, provisionedStack, type DesiredHost } from '../../../lib/host-state/desired.ts';
import { reconcileAtStart, restoreHost } from '../../../lib/host-state/reconcile.ts';
import { unlinkUncertifiedStack, writeStack } from '../../../lib/host-state/stack.ts';
import { sandboxPaths } from '../../../lib/system/sandbox/paths.ts';
import type { VhostSpec } from '../../../lib/system/types.ts';
import { managedSite } from '../sites/helpers.ts';
import { createTunnel, DOMAIN, tunnelApp, type TunnelTestApp } from '../tunnels/helpers.ts';

const EMAIL = `ops@${DOMAIN}`;
const DEFAULT_NAME = 'relay-default.conf';

/** A box after onboarding with its stack certified, a site, and tunnels: kept and dropped enabled, off disabled. */
async function box(): Promise<TunnelTestApp> {
  const t = await tunnelApp();
  for (const name of ['panel', 'auth', 'tunnel']) await t.services.system.certs.issue(`${name}.${DOMAIN}`, EMAIL);
  await managedSite(t, 'docs');
  await createTunnel(t, 'kept', 7000);
  const off = (await createTunnel(t, 'off', 7001)).body.tunnel.id;
  assert.is((await t.call('PATCH', `/api/tunnels/${off}`, { body: { enabled: false } })).status, 200);
  await createTunnel(t, 'dropped', 7002);
  return t;
}

/** The relay vhosts on the host: linked, and written but not linked. */
async function host(t: TunnelTestApp): Promise<{ linked: string[]; unlinked: string[] }> {
  const p = sandboxPaths(t.services.store.dataDir);
  const written = (await readdir(p.sitesAvailable)).filter((name) => name.startsWith('relay-')).sort();
  // a shared tunnel's route is linked beside sites-available, where the shared server's map includes it
  const links = new Set([...(await readdir(p.sitesEnabled)), ...(await readdir(p.routes).catch(() => [] as string[]))]);
  return { linked: written.filter((name) => links.has(name)), unlinked: written.filter((name) => !links.has(name)) };
}

/** Every relay vhost file and link gone, as after an uninstall or on the box a backup is restored to. */
async function wipe(t: TunnelTestApp): Promise<void> {
  const p = sandboxPaths(t.services.store.dataDir);
  for (const dir of [p.sitesEnabled, p.sitesAvailable, p.routes]) {
    for (const name of await readdir(dir).catch(() => [] as string[])) if (name.startsWith('relay-')) await rm(join(dir, name));
  }
}

const names = (t: TunnelTestApp, specs: VhostSpec[]) => specs.map((spec) => t.services.system.proxy.vhostName(spec)).sort();
/** What the desired state links: the served vhosts and the enabled tunnels'. */
const linkedOf = (t: TunnelTestApp, desired: DesiredHost) => names(t, [...desired.served, ...desired.tunnels.filter((x) => x.enabled).map((x) => x.spec)]);

const s = suite<{ t: TunnelTestApp }>('one owner of the desired host state', {} as { t: TunnelTestApp });
s.before.each(async (ctx) => {
  ctx.t = await box();
});
s.after.each(async ({ t }) => t.close());

s('from the records, restore, start-up and the tunnel repair each reach the desired set on a wiped host', async ({ t }) => {
  const desired = await desiredHost(t.services);
  const linked = linkedOf(t, desired);
  assert.equal(linked, [`relay-app-dropped.${DOMAIN}.conf`, `relay-app-kept.${DOMAIN}.conf`, `relay-auth-portal-auth.${DOMAIN}.conf`, DEFAULT_NAME, `relay-panel-panel.${DOMAIN}.conf`, `relay-site-docs.${DOMAIN}.conf`, `relay-tunnel-server-tunnel.${DOMAIN}.conf`, `relay-tunnels-${DOMAIN}.conf`]);
  await wipe(t);
  assert.equal(await restoreHost(t.services), []);
  assert.equal((await host(t)).linked, linked, 'restore');
  await wipe(t);
  await reconcileAtStart(t.services);
  // the default server is install's to write, never the start's
  assert.equal((await host(t)).linked, linked.filter((name) => name !== DEFAULT_NAME), 'start-up');
  await wipe(t);
  await t.services.tunnels.repairHost();
  assert.equal((await host(t)).linked, names(t, desired.tunnels.filter((x) => x.enabled).map((x) => x.spec)), 'tunnel repair');
});

/** The records' desired state, steered: a site and a tunnel no record names, and the tunnel `dropped` left out. */
async function steered(t: TunnelTestApp): Promise<DesiredHost> {
  const desired = await desiredHost(t.services);
  const extra: VhostSpec = { kind: 'site', fqdn: `extra.${DOMAIN}`, root: t.services.system.siteStorage.dirOf(randomUUID()), spaMode: false, protected: false };
  const ghost = { id: randomUUID(), fqdn: `ghost.${DOMAIN}`, spec: { kind: 'app' as const, fqdn: `ghost.${DOMAIN}`, port: 7999 }, enabled: true };
  const served = [...desired.served, extra];
  const tunnels = [...desired.tunnels.filter((x) => x.fqdn !== `dropped.${DOMAIN}`), ghost];
  return { served, tunnels, current: [...desired.current, extra, ghost.spec], streams: desired.streams };
}

const EXTRA = `relay-site-extra.${DOMAIN}.conf`;
const GHOST = `relay-app-ghost.${DOMAIN}.conf`;
const DROPPED = `relay-app-dropped.${DOMAIN}.conf`;
const OFF = `relay-app-off.${DOMAIN}.conf`;

s('restore follows a steered desired state, not the records', async ({ t }) => {
  const desired = await steered(t);
  await wipe(t);
  assert.equal(await restoreHost(t.services, desired), []);
  assert.equal(await host(t), { linked: linkedOf(t, desired), unlinked: [] });
  assert.ok((await host(t)).linked.includes(EXTRA) && (await host(t)).linked.includes(GHOST));
});

s('start-up follows a steered desired state, not the records', async ({ t }) => {
  const desired = await steered(t);
  await reconcileAtStart(t.services, desired);
  const after = await host(t);
  assert.ok(after.linked.includes(EXTRA), 'the missing served vhost written');
  assert.ok(after.linked.includes(GHOST), 'the repair wrote the desired tunnel');
  assert.not.ok([...after.linked, ...after.unlinked].includes(DROPPED), 'a tunnel vhost the desired state does not name is removed');
  assert.equal(after.unlinked, [OFF]);
});

s('the tunnel repair follows a steered desired state, not the records', async ({ t }) => {
  const desired = await steered(t);
  const report = await t.services.tunnels.repairHost(desired.tunnels);
  assert.equal(report.orphans, [DROPPED]);
  assert.equal(report.failures, []);
  const after = await host(t);
  assert.ok(after.linked.includes(GHOST));
  assert.not.ok(after.linked.includes(EXTRA), 'served vhosts are not the repair\'s');
});

s('onboarding writes and guards the stack it is given', async ({ t }) => {
  const { proxy, certs } = t.services.system;
  const stack = await provisionedStack(certs, DOMAIN);
  assert.equal(stack.uncertified, []);
  const extra: VhostSpec = { kind: 'site', fqdn: `extra.${DOMAIN}`, root: t.services.system.siteStorage.dirOf(randomUUID()), spaMode: false, protected: false };
  let announced: string[] = [];
  await writeStack(proxy, { ...stack, vhosts: [...stack.vhosts, extra] }, (list) => (announced = list));
  assert.equal(announced, [...stack.vhosts, extra].map((spec) => proxy.vhostName(spec)));
  assert.ok((await host(t)).linked.includes(EXTRA));
  const panel = stack.vhosts.find((spec) => spec.kind === 'panel') as Extract<VhostSpec, { kind: 'panel' }>;
  const refused = await writeStack(proxy, { ...stack, uncertified: [panel] }, () => {}).then(() => null, (error: Error) => error.message);
  assert.is(refused, `No valid certificate for ${panel.fqdn}`);
  assert.equal(await unlinkUncertifiedStack(proxy, { ...stack, uncertified: [panel] }), [proxy.vhostName(panel)]);
  assert.ok((await host(t)).unlinked.includes(proxy.vhostName(panel)));
});

s.run();
