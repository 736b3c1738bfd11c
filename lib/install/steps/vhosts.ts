// The vhosts install and upgrade write as root: the IP panel's and the default server of ports 80
// and 443. Every other vhost is the panel's, written through the root helper; after an upgrade the
// panel's start rewrites the ones whose templates changed (lib/host-state/reconcile.ts).
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ipPanelLinked } from '../../host-state/desired.ts';
import { DEFAULT_VHOST, IP_PANEL_VHOST } from '../../host-state/vhost-specs.ts';
import { routesDirOf } from '../../system/config.ts';
import { applyVhostChanges } from '../../root-helper/apply.ts';
import { rewriteTlsPaths } from '../../root-helper/tls-paths-rewrite.ts';
import { hostVhostDirs } from '../../system/proxy/host.ts';
import { isVhostNameOfKind, vhostName } from '../../system/proxy/templates.ts';
import { VhostDirs } from '../../system/proxy/vhost-dirs.ts';
import type { VhostChange, VhostSpec } from '../../system/types.ts';
import { asPanelUser } from '../as-panel-user.ts';
import { debianDefaultSiteLink, disableDebianDefaultSite } from '../debian-site.ts';
import type { Owner } from '../files.ts';
import type { Installation } from '../installation.ts';
import { readInstalledConfig } from '../installed-config.ts';
import type { Outcome } from './step.ts';

/**
 * Writes the installer's vhosts as the root helper does (the same checks and copies of what they
 * load), after the panel's user made what they point at: the client CA, the help page and the
 * self-signed certificates are the panel's, in its directories.
 */
async function putVhosts(inst: Installation, owner: Owner, changes: Array<Extract<VhostChange, { op: 'put' }>>): Promise<void> {
  await asPanelUser(inst, owner, { task: 'vhost-material', system: inst.system, specs: changes.map((c) => c.spec) });
  await applyVhostChanges(inst.system, inst.publicLocations, changes);
}

/** The IP panel's vhost (left unlinked while the panel's 2FA is on, which turned it off) and the default server. */
export async function ipVhost(inst: Installation, owner: Owner): Promise<Outcome> {
  const dirs = new VhostDirs(hostVhostDirs(inst.system));
  const linked = ipPanelLinked((await readInstalledConfig(inst).catch(() => null))?.panel2fa ?? { enabled: false });
  const wanted: Array<{ spec: VhostSpec; enabled: boolean }> = [{ spec: IP_PANEL_VHOST, enabled: linked }, { spec: DEFAULT_VHOST, enabled: true }];
  const files = wanted.map(({ spec }) => join(inst.system.nginx.sitesAvailable, vhostName(spec)));
  const before = await Promise.all(files.map((file) => readFile(file, 'utf8').catch(() => null)));
  const linkedBefore = await Promise.all(wanted.map(async ({ spec }) => (await dirs.state(vhostName(spec))).enabled));
  const unlinked = await disableDebianDefaultSite(inst.system.nginx);
  // applying ends with a reload, which needs a running nginx (a package install may not start it)
  await inst.run(inst.system.binaries.systemctl, ['enable', '--now', inst.system.units.proxy]);
  const rewritten = await rewriteTlsPaths(inst.system);
  await putVhosts(inst, owner, wanted.map(({ spec, enabled }) => ({ op: 'put' as const, spec, enabled })));
  const after = await Promise.all(files.map((file) => readFile(file, 'utf8')));
  const same = !unlinked && rewritten.length === 0 && before.every((text, i) => text === after[i]) && linkedBefore.every((linked, i) => linked === wanted[i]!.enabled);
  const ipPanel = !linked ? `${files[0]} on port ${inst.system.ports.ipPanel}, not linked: the panel's 2FA is on` : `${files[0]} on port ${inst.system.ports.ipPanel} (client certificate required)`;
  return {
    status: same ? 'done' : 'changed',
    message: `${ipPanel}, ${servedByDefault(inst, files[1]!, unlinked)}${tlsNote(rewritten)}, nginx tested and reloaded`,
  };
}

/** Upgrade: a box installed by a release before the default server gets it, and Debian's site loses its link. */
export async function defaultServer(inst: Installation, owner: Owner): Promise<Outcome> {
  const file = join(inst.system.nginx.sitesAvailable, vhostName(DEFAULT_VHOST));
  const state = await new VhostDirs(hostVhostDirs(inst.system)).state(vhostName(DEFAULT_VHOST));
  const unlinked = await disableDebianDefaultSite(inst.system.nginx);
  const rewritten = await rewriteTlsPaths(inst.system);
  if (state.written && state.enabled && !unlinked) {
    return { status: rewritten.length ? 'changed' : 'done', message: `${file} in place${tlsNote(rewritten)}; the panel rewrites the vhosts whose templates changed when it starts` };
  }
  await putVhosts(inst, owner, [{ op: 'put', spec: DEFAULT_VHOST, enabled: true }]);
  return { status: 'changed', message: `${servedByDefault(inst, file, unlinked)}${tlsNote(rewritten)}, nginx tested and reloaded` };
}

/**
 * What the vhost steps of an upgrade may write, for its rollback: every vhost and link as it is now,
 * and what the default server adds (its certificate is the panel's, made by the panel's user: root
 * neither saves nor puts back files in the panel's directories). Also what the new release's first
 * start may add on a wildcard box, so a rollback takes it away again: the shared tunnels' server and
 * each tunnel's route link (an earlier release's full vhosts under that server's map would make
 * nginx refuse every reload).
 */
export async function vhostFiles(inst: Installation): Promise<string[]> {
  const { sitesAvailable, sitesEnabled } = inst.system.nginx;
  const routes = routesDirOf(inst.system);
  const names = async (dir: string) => readdir(dir).catch(() => [] as string[]);
  const present = async (dir: string) => (await names(dir)).map((name) => join(dir, name));
  const name = vhostName(DEFAULT_VHOST);
  const apps = (await names(sitesAvailable)).filter((file) => isVhostNameOfKind(file, 'app'));
  const domain = (await readInstalledConfig(inst).catch(() => null))?.domain ?? null;
  const shared = domain ? vhostName({ kind: 'tunnels', fqdn: domain }) : null;
  return [
    ...(await present(sitesAvailable)), ...(await present(sitesEnabled)), ...(await present(routes)),
    join(sitesAvailable, name), join(sitesEnabled, name), debianDefaultSiteLink(inst.system.nginx),
    ...apps.map((file) => join(routes, file)),
    ...(shared ? [join(sitesAvailable, shared), join(sitesEnabled, shared)] : []),
  ];
}

/** What the rewrite of an earlier release's TLS paths did (tls-paths-rewrite.ts). */
function tlsNote(rewritten: readonly string[]): string {
  return rewritten.length ? `; ${rewritten.join(', ')} now load root's checked copies of their certificates, not the panel's files` : '';
}

function servedByDefault(inst: Installation, file: string, debianUnlinked: boolean): string {
  const { ports, nginx } = inst.system;
  return `${file} on ports ${ports.http} and ${ports.https} (404 for names without a vhost)${debianUnlinked ? `; Debian's default site unlinked from ${nginx.sitesEnabled}` : ''}`;
}
