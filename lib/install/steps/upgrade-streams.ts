// What an upgrade does for the TCP and UDP tunnels on a box installed before them: apt-gets the
// stream module as install does (its directories step then writes the stream block), and has nginx
// read the block, so the stream servers listen once the upgrade is done. Install needs no step of
// its own for the second part: its ip-vhost step, after the directories, always tests and reloads.
import { readFile } from 'node:fs/promises';
import { streamsDirOf } from '../../system/config.ts';
import { hostNginxControl } from '../../system/proxy/host.ts';
import { nginxMasterPid } from '../../system/proxy/nginx-proc.ts';
import type { SavedFile } from '../file-snapshot.ts';
import type { Installation } from '../installation.ts';
import { streamBlockPath } from '../stream-block.ts';
import { AptFailure, installPackages } from './host.ts';
import type { Outcome } from './step.ts';

/**
 * Install's package step, except that apt-get failing (no network, dpkg's lock held by
 * unattended-upgrades) is a warning: every package of the list but the stream module was there
 * before, the module only serves the tunnels it adds, and a box that upgraded without apt must
 * still upgrade. A package it installed stays when the upgrade fails later (docs/decisions.md):
 * `installed` is what the rollback notes again in the install record it puts back.
 */
export async function upgradePackages(inst: Installation): Promise<{ outcome: Outcome; installed: string[] }> {
  try {
    return await installPackages(inst);
  } catch (e) {
    if (!(e instanceof AptFailure)) throw e;
    const outcome: Outcome = {
      status: 'warning',
      message: `apt-get could not install ${e.missing.join(', ')}: ${e.message.split('\n')[0]}; the upgrade goes on without them`,
      fix: `apt-get install ${e.missing.join(' ')}, then ./relay-panel install from this release (it keeps what is there and loads the stream module)`,
    };
    return { outcome, installed: [] };
  }
}

/** nginx as the upgrade sees it: whether its master runs, its test and its checked reload. */
export interface UpgradeNginx {
  running(): Promise<boolean>;
  test(): Promise<void>;
  reload(): Promise<void>;
}

const hostNginx = (inst: Installation): UpgradeNginx => ({
  ...hostNginxControl(inst.system),
  running: async () => (await nginxMasterPid(inst.system.nginx.pidFile)) !== null,
});

/**
 * nginx tested and reloaded when the stream block is not what it was before the upgrade (written
 * now that the module is loaded, or removed because it is not): the vhosts step reloads only when
 * it writes the default server, and the new panel's start only when it writes a stream server.
 * A stopped nginx reads it when it starts (a reload of it would fail).
 */
export async function streamServers(inst: Installation, before: SavedFile | undefined, nginx: UpgradeNginx = hostNginx(inst)): Promise<Outcome> {
  const file = streamBlockPath(inst.system);
  const now = await readFile(file).catch(() => null);
  const was = before?.state.kind === 'file' ? before.state.data : null;
  const servers = `the stream servers of ${streamsDirOf(inst.system)}`;
  if (now === null ? was === null : was !== null && now.equals(was)) {
    return { status: 'done', message: now ? `${file} as before: nginx serves ${servers}` : `no stream block (nginx's stream module is not loaded)` };
  }
  if (!(await nginx.running())) return { status: 'changed', message: `${now ? 'wrote' : 'removed'} ${file}; nginx is not running, it reads it when it starts` };
  await nginx.test();
  await nginx.reload();
  return { status: 'changed', message: now ? `wrote ${file}: nginx tested and reloaded, ${servers} listen` : `removed ${file} (the stream module is gone): nginx tested and reloaded` };
}
