// The vhosts install and upgrade write as root: the IP panel's and the default server of ports 80
// and 443. Every other vhost is the panel's, written through the root helper; after an upgrade the
// panel's start rewrites the ones whose templates changed (lib/refresh-vhosts.ts).
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { DEFAULT_VHOST } from '../../onboarding/hostnames.ts';
import { createHostSystem } from '../../system/host/index.ts';
import { defaultCertPaths } from '../../system/nginx/renderer.ts';
import { vhostName } from '../../system/nginx/templates.ts';
import type { VhostSpec } from '../../system/types.ts';
import { debianDefaultSiteLink, disableDebianDefaultSite } from '../debian-site.ts';
import { chownTree, type Owner } from '../files.ts';
import type { Installation } from '../installation.ts';
import { readInstalledConfig } from '../installed-config.ts';
import type { Outcome } from './step.ts';

const IP_PANEL: VhostSpec = { kind: 'ip-panel' };

const hostSystem = (inst: Installation) => createHostSystem(inst.system, { dataDir: inst.layout.dataDir, publicLocations: inst.publicLocations });

/** The IP panel's vhost (left unlinked while the panel's 2FA is on, which turned it off) and the default server. */
export async function ipVhost(inst: Installation, owner: Owner): Promise<Outcome> {
  const { proxy } = hostSystem(inst);
  const twoFactor = (await readInstalledConfig(inst).catch(() => null))?.panel2fa.enabled ?? false;
  const wanted: Array<{ spec: VhostSpec; enabled: boolean }> = [{ spec: IP_PANEL, enabled: !twoFactor }, { spec: DEFAULT_VHOST, enabled: true }];
  const files = wanted.map(({ spec }) => join(inst.system.nginx.sitesAvailable, proxy.vhostName(spec)));
  const before = await Promise.all(files.map((file) => readFile(file, 'utf8').catch(() => null)));
  const linkedBefore = await Promise.all(wanted.map(async ({ spec }) => (await proxy.state(proxy.vhostName(spec))).enabled));
  const unlinked = await disableDebianDefaultSite(inst.system.nginx);
  // applying ends with a reload, which needs a running nginx (a package install may not start it)
  await inst.run(inst.system.binaries.systemctl, ['enable', '--now', inst.system.units.proxy]);
  await proxy.apply(wanted.map(({ spec, enabled }) => ({ op: 'put' as const, spec, enabled })));
  await chownTree(inst.system.nginx.selfSignedDir, owner);
  await chownTree(inst.system.nginx.helpDir, owner);
  const after = await Promise.all(files.map((file) => readFile(file, 'utf8')));
  const same = !unlinked && before.every((text, i) => text === after[i]) && linkedBefore.every((linked, i) => linked === wanted[i]!.enabled);
  const ipPanel = twoFactor ? `${files[0]} on port ${inst.system.ports.ipPanel}, not linked: the panel's 2FA is on` : `${files[0]} on port ${inst.system.ports.ipPanel} (client certificate required)`;
  return {
    status: same ? 'done' : 'changed',
    message: `${ipPanel}, ${servedByDefault(inst, files[1]!, unlinked)}, nginx tested and reloaded`,
  };
}

/** Upgrade: a box installed by a release before the default server gets it, and Debian's site loses its link. */
export async function defaultServer(inst: Installation): Promise<Outcome> {
  const { proxy } = hostSystem(inst);
  const file = join(inst.system.nginx.sitesAvailable, proxy.vhostName(DEFAULT_VHOST));
  const state = await proxy.state(proxy.vhostName(DEFAULT_VHOST));
  const unlinked = await disableDebianDefaultSite(inst.system.nginx);
  if (state.written && state.enabled && !unlinked) return { status: 'done', message: `${file} in place; the panel rewrites the vhosts whose templates changed when it starts` };
  await proxy.apply([{ op: 'put', spec: DEFAULT_VHOST, enabled: true }]);
  // its certificate is the panel's, as the IP panel's beside it is (the backup reads that directory)
  const dir = await stat(inst.system.nginx.selfSignedDir);
  await chownTree(inst.system.nginx.selfSignedDir, { uid: dir.uid, gid: dir.gid });
  return { status: 'changed', message: `${servedByDefault(inst, file, unlinked)}, nginx tested and reloaded` };
}

/** What the vhost steps of an upgrade may write, for its rollback: every vhost and link as it is now, and what the default server adds. */
export async function vhostFiles(inst: Installation): Promise<string[]> {
  const { sitesAvailable, sitesEnabled, selfSignedDir } = inst.system.nginx;
  const present = async (dir: string) => (await readdir(dir).catch(() => [] as string[])).map((name) => join(dir, name));
  const name = vhostName(DEFAULT_VHOST);
  const cert = defaultCertPaths(selfSignedDir);
  return [
    ...(await present(sitesAvailable)), ...(await present(sitesEnabled)),
    join(sitesAvailable, name), join(sitesEnabled, name), debianDefaultSiteLink(inst.system.nginx), cert.fullchain, cert.privkey,
  ];
}

function servedByDefault(inst: Installation, file: string, debianUnlinked: boolean): string {
  const { ports, nginx } = inst.system;
  return `${file} on ports ${ports.http} and ${ports.https} (404 for names without a vhost)${debianUnlinked ? `; Debian's default site unlinked from ${nginx.sitesEnabled}` : ''}`;
}
