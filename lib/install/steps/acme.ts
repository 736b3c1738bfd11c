// The panel's certificates live in directories of its own (config.acme). A box installed by a
// release that issued into Debian's /etc/letsencrypt gets its lineages moved by the panel's user
// (acme-move.ts), the panel's configuration pointed at the new directories, and Debian's
// directories given back to root (give-back.ts), so root's certbot never runs what the panel's
// user could have planted there. It only goes forward: a failed upgrade after it keeps the moved
// lineages and the configuration that names them.
import { lstat } from 'node:fs/promises';
import type { SystemConfig } from '../../system/config.ts';
import { reloadNginxCommand } from '../../system/host/certs.ts';
import type { AcmeDirs } from '../acme-move.ts';
import { asPanelUser } from '../as-panel-user.ts';
import type { Owner } from '../files.ts';
import type { Installation } from '../installation.ts';
import { readInstalledConfig } from '../installed-config.ts';
import { describeGiveBack, giveBackCertbot } from '../give-back-certbot.ts';
import { isUnitActive } from '../unit-state.ts';
import { syncPanelSystem } from './root-helper.ts';
import type { Outcome } from './step.ts';

/** The earlier release's certbot directories that are not this release's too. */
function legacyDirs(from: AcmeDirs, to: AcmeDirs): { configDir: string | null; workDir: string | null; logsDir: string | null } {
  const unless = (k: keyof AcmeDirs) => (from[k] !== to[k] ? from[k] : null);
  return { configDir: unless('configDir'), workDir: unless('workDir'), logsDir: unless('logsDir') };
}

const dirsOf = (acme: SystemConfig['acme']): AcmeDirs => ({ configDir: acme.configDir, workDir: acme.workDir, logsDir: acme.logsDir, webroot: acme.webroot });

export async function acme(inst: Installation, owner: Owner): Promise<Outcome> {
  const config = await readInstalledConfig(inst);
  const from = dirsOf(config.system.acme);
  const to = dirsOf(inst.system.acme);
  if ((Object.keys(to) as Array<keyof AcmeDirs>).every((k) => from[k] === to[k])) {
    return { status: 'done', message: `the panel's certificates live in ${to.configDir}` };
  }
  const old = await lstat(from.configDir).catch(() => null);
  // only a directory the panel's user owns can hold lineages the panel issued
  const ours = old?.isDirectory() && old.uid === owner.uid;
  const move = ours ? await asPanelUser(inst, owner, { task: 'acme-move', move: { from, to, panelHooks: [reloadNginxCommand(config.system)] } }) : null;
  // from its next start the panel issues and renews in the new directories
  await syncPanelSystem(inst);
  const moved = move?.moved.length ? `moved ${move.moved.join(', ')} from ${from.configDir} to ${to.configDir}` : `nothing of the panel's in ${from.configDir}`;
  if (!ours) return { status: 'changed', message: moved };
  // nothing of the panel's user may run while root takes its directories back (the earlier
  // release's drop-in ran Debian's certbot as that user); the panel starts again later in the run
  const { systemctl } = inst.system.binaries;
  const panelWasActive = await isUnitActive(inst, inst.system.units.panel);
  await inst.run(systemctl, ['stop', inst.system.units.panel, 'certbot.service', 'certbot.timer'], [1, 5]).catch(() => null);
  let reports;
  try {
    reports = await giveBackCertbot({ dirs: { ...legacyDirs(from, to), webroot: from.webroot !== to.webroot ? from.webroot : null }, panel: owner, quarantine: inst.layout.quarantine });
  } finally {
    await inst.run(systemctl, ['start', 'certbot.timer', ...(panelWasActive ? [inst.system.units.panel] : [])], [1, 5]).catch(() => null);
  }
  const given = describeGiveBack(reports);
  const quarantined = reports.some((r) => r.quarantined.length > 0);
  return {
    status: quarantined ? 'warning' : 'changed',
    message: `${moved}; ${given}`,
    ...(quarantined ? { fix: `review ${inst.layout.quarantine}: an earlier release let ${inst.options.user} write ${from.configDir}, so root's certbot must not run or follow what is there until you have looked` } : {}),
  };
}
