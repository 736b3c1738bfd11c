// The panel's certificates live in directories of its own (config.acme). A box installed by a
// release that issued into Debian's /etc/letsencrypt gets its lineages moved by the panel's user
// (acme-move.ts), the panel's configuration pointed at the new directories, and Debian's
// directories given back to root (give-back.ts), so root's certbot never runs what the panel's
// user could have planted there. It only goes forward: a failed upgrade after it keeps the moved
// lineages and the configuration that names them.
import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import type { SystemConfig } from '../../system/config.ts';
import { reloadNginxCommand } from '../../system/certs/host.ts';
import type { AcmeDirs } from '../acme-move.ts';
import { asPanelUser } from '../as-panel-user.ts';
import type { Owner } from '../files.ts';
import type { Installation } from '../installation.ts';
import { readInstalledConfig } from '../installed-config.ts';
import { describeGiveBack, giveBackCertbot } from '../give-back-certbot.ts';
import { isUnitActive } from '../unit-state.ts';
import { syncPanelSystem } from './root-helper.ts';
import type { Outcome } from './step.ts';

/**
 * Debian's certbot directories, where earlier releases issued: the only ones root gives back. The
 * panel's configuration says where its earlier directories were, but it is the panel's user's to
 * write: root never acts on a path it names (pointed at /var/lib/relay-panel, a give-back would
 * hand the panel's state to root and copy it out).
 */
function debianCertbotDirs(prefix: string): AcmeDirs {
  const at = (p: string) => join(prefix, p);
  return { configDir: at('etc/letsencrypt'), workDir: at('var/lib/letsencrypt'), logsDir: at('var/log/letsencrypt'), webroot: at('var/www/html') };
}

/** Each of Debian's directories the earlier release used and this one does not: what goes back to root. */
function toGiveBack(inst: Installation, from: AcmeDirs, to: AcmeDirs): { [K in keyof AcmeDirs]: string | null } {
  const debian = debianCertbotDirs(inst.layout.prefix);
  const back = (k: keyof AcmeDirs) => (from[k] === debian[k] && to[k] !== debian[k] ? debian[k] : null);
  return { configDir: back('configDir'), workDir: back('workDir'), logsDir: back('logsDir'), webroot: back('webroot') };
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
  // only a directory the panel's user owns can hold lineages the panel issued; a panel run as root
  // has no boundary to restore (everything there is root's, the operator's included)
  const ours = owner.uid !== 0 && old?.isDirectory() === true && old.uid === owner.uid;
  // the move runs as the panel's user: the paths its configuration names are its own business
  const move = ours ? await asPanelUser(inst, owner, { task: 'acme-move', move: { from, to, panelHooks: [reloadNginxCommand(config.system)] } }) : null;
  // from its next start the panel issues and renews in the new directories (forward only: a failed
  // upgrade keeps this section, since the lineages stay where they moved)
  await syncPanelSystem(inst, ['acme']);
  const moved = move?.moved.length ? `moved ${move.moved.join(', ')} from ${from.configDir} to ${to.configDir}` : `nothing of the panel's in ${from.configDir}`;
  const dirs = toGiveBack(inst, from, to);
  if (!ours || Object.values(dirs).every((d) => d === null)) return { status: 'changed', message: moved };
  // stopped so that nothing of the panel's runs a race the give-back would have to win (it wins
  // anyway: each directory is root's before it is read); each started again as it was
  const { systemctl } = inst.system.binaries;
  const running = [];
  for (const unit of [inst.system.units.panel, 'certbot.timer']) if (await isUnitActive(inst, unit)) running.push(unit);
  await inst.run(systemctl, ['stop', inst.system.units.panel, 'certbot.service', 'certbot.timer'], [1, 5]).catch(() => null);
  let reports;
  try {
    reports = await giveBackCertbot({ dirs, panel: owner, quarantine: inst.layout.quarantine });
  } finally {
    if (running.length) await inst.run(systemctl, ['start', ...running], [1, 5]).catch(() => null);
  }
  const given = describeGiveBack(reports);
  const quarantined = reports.some((r) => r.quarantined.length > 0);
  return {
    status: quarantined ? 'warning' : 'changed',
    message: `${moved}; ${given}`,
    ...(quarantined ? { fix: `review ${inst.layout.quarantine}: an earlier release let ${inst.options.user} write ${from.configDir}, so root's certbot must not run or follow what is there until you have looked` } : {}),
  };
}
