// The install's `privileges` step: the root helper service is the panel's only way to root. It
// writes the helper's root-owned configuration, the `root-call` launcher (certbot's hook), the
// socket and service units, removes what releases before it installed (sudo rules and launchers),
// points the panel's configuration at the helper's socket and starts the socket.
import { realpath, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { notRootOnly, pathExists } from '../../system/common/fs.ts';
import { asPanelUser } from '../as-panel-user.ts';
import { ensureDir, writeIfChanged } from '../files.ts';
import { InstallError } from '../host-checks.ts';
import type { Installation } from '../installation.ts';
import type { Layout } from '../layout.ts';
import { renderRootCallLauncher, renderRootHelperService, renderRootHelperSocket, ROOT_HELPER_UNIT } from '../privileges.ts';
import { lockVhostDirs } from './host.ts';
import { ROOT, type Outcome } from './step.ts';
import { panelOwner } from '../users.ts';

export const rootHelperSocketUnit = `${ROOT_HELPER_UNIT}.socket`;
export const rootHelperServiceUnit = `${ROOT_HELPER_UNIT}.service`;

/** What a release before the root helper installed: sudo rules, their launchers, the sudo-run vhost helper. */
export function legacyPrivilegeFiles(l: Layout): string[] {
  const { wrapperDir, vhostLauncher, vhostConfig, sudoersFile } = l.legacy;
  return [sudoersFile, ...['nginx', 'systemctl', 'vhosts'].map((w) => join(wrapperDir, w)), vhostLauncher, vhostConfig];
}

/** Every file the step writes or removes: what a failed upgrade puts back. */
export function rootHelperFiles(inst: Installation): string[] {
  const l = inst.layout;
  return [l.helperConfig, l.rootCall, l.unitFile(ROOT_HELPER_UNIT, 'socket'), l.unitFile(ROOT_HELPER_UNIT), ...legacyPrivilegeFiles(l)];
}

export async function privileges(inst: Installation): Promise<Outcome> {
  const { layout: l, options, system } = inst;
  if (options.user === 'root') return { status: 'skipped', message: 'the panel runs as root (--user root): no root helper' };
  // the helper runs this node as root: whoever could replace it would be root
  const node = await realpath(options.node);
  for (const path of [node, dirname(node)]) {
    const problem = await notRootOnly(path);
    if (problem) throw new InstallError(`node cannot run the root helper: ${problem}`, 'install Node.js 20+ as root (README "Production"), then run install with it');
  }
  const server = join(l.current, 'server.mjs');
  let changed = await ensureDir(dirname(l.rootCall), 0o755, ROOT);
  changed = (await writeIfChanged(l.rootCall, renderRootCallLauncher(options.node, server, l.helperSocket), 0o755)) || changed;
  changed = (await writeIfChanged(l.helperConfig, `${JSON.stringify(system, null, 2)}\n`, 0o644)) || changed;
  let unitsChanged = await writeIfChanged(l.unitFile(ROOT_HELPER_UNIT, 'socket'), renderRootHelperSocket({ socket: l.helperSocket, group: options.user }), 0o644);
  unitsChanged = (await writeIfChanged(l.unitFile(ROOT_HELPER_UNIT), renderRootHelperService({ node: options.node, server, config: l.helperConfig, nginx: system.nginx }), 0o644)) || unitsChanged;
  const removed = await removeLegacy(l);
  const pointed = await syncPanelSystem(inst);
  const locked = await lockVhostDirs(inst);
  changed = pointed || locked || unitsChanged || removed.length > 0 || changed;
  const { systemctl } = system.binaries;
  if (unitsChanged) await inst.run(systemctl, ['daemon-reload']);
  await inst.run(systemctl, ['enable', '--now', rootHelperSocketUnit]);
  // a helper still running an earlier release's code or configuration starts again at the next request
  await inst.run(systemctl, ['try-restart', rootHelperServiceUnit]);
  const gone = removed.length ? `; removed ${removed.join(', ')}` : '';
  return { status: changed ? 'changed' : 'done', message: `the panel reaches root only through ${l.helperSocket} (${rootHelperSocketUnit}, group ${options.user}, 0660); no sudo rules${gone}` };
}

async function removeLegacy(l: Layout): Promise<string[]> {
  const removed: string[] = [];
  for (const file of legacyPrivilegeFiles(l)) {
    if (await pathExists(file)) {
      await rm(file, { force: true });
      removed.push(file);
    }
  }
  await rm(l.legacy.wrapperDir, { recursive: true, force: true });
  return removed;
}

/**
 * The panel's configuration made to agree with the helper's on the helper's socket, who runs what
 * and where the certificates live, by the panel's user, whose file it is.
 */
export async function syncPanelSystem(inst: Installation, sections: Array<'rootHelper' | 'systemd' | 'acme'> = ['rootHelper', 'systemd', 'acme']): Promise<boolean> {
  const system = Object.fromEntries(sections.map((k) => [k, inst.panelSystem[k]]));
  const { changed } = await asPanelUser(inst, await panelOwner(inst), {
    task: 'sync-system',
    file: inst.layout.configFile,
    system,
    binaries: { nginx: inst.system.binaries.nginx, systemctl: inst.system.binaries.systemctl },
    legacyWrapperDir: inst.layout.legacy.wrapperDir,
  });
  return changed;
}

/** Whether the box still has a sudo rule for the panel: doctor's check. */
export async function leftoverSudoRules(l: Layout): Promise<string | null> {
  return (await pathExists(l.legacy.sudoersFile)) ? l.legacy.sudoersFile : null;
}
