// The panel's certificate renewals on a box: its own timer and service (lib/system/certs/renew-units.ts),
// written by root; the drop-in an earlier release put on Debian's certbot.service (which ran
// Debian's certbot as the panel's user over /etc/letsencrypt) goes, and Debian's timer is the
// operator's again, for the operator's own lineages.
import { rm, rmdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { SystemConfig } from '../system/config.ts';
import { entryExists } from '../system/common/fs.ts';
import { acmeDirs, renewUnitFiles, renewUnitNames, type RenewUnitFile } from '../system/certs/renew-units.ts';
import { renewalEnvironment } from '../system/certs/renewal-env.ts';
import { writeIfChanged } from './files.ts';
import type { Installation } from './installation.ts';
import { holdingTopLevelDirs } from './panel-dirs.ts';

/** Where releases before the panel's own timer made Debian's certbot.service run as the panel's user. */
export function legacyCertbotDropIn(system: SystemConfig): string {
  return join(system.systemd.unitDir, 'certbot.service.d', 'relay-panel.conf');
}

/**
 * The renewal units as this installation writes them: writing the panel's top-level directories
 * that hold certbot's, with the environment a DNS plugin reads its credentials from.
 */
export function renewalUnits(inst: Installation): RenewUnitFile[] {
  return renewUnitFiles(inst.system, holdingTopLevelDirs(inst, acmeDirs(inst.system)), renewalEnvironment(inst.layout.dataDir));
}

/** The unit files the panel's renewals are: what uninstall removes and a failed upgrade puts back. */
export function renewalFiles(inst: Installation): string[] {
  return [...renewalUnits(inst).map((u) => u.path), legacyCertbotDropIn(inst.system)];
}

/** Writes the panel's renewal units and removes the legacy drop-in: true when something changed. */
export async function placeRenewalUnits(inst: Installation): Promise<boolean> {
  let changed = false;
  for (const unit of renewalUnits(inst)) changed = (await writeIfChanged(unit.path, unit.content, 0o644)) || changed;
  const legacy = legacyCertbotDropIn(inst.system);
  if (await entryExists(legacy)) {
    await rm(legacy, { force: true });
    await rmdir(dirname(legacy)).catch(() => null);
    changed = true;
  }
  return changed;
}

/** Stops, disables and removes the panel's renewal units and the legacy drop-in; what was removed. */
export async function removeRenewalUnits(inst: Installation): Promise<string[]> {
  const { timer, service } = renewUnitNames(inst.system);
  await inst.run(inst.system.binaries.systemctl, ['disable', '--now', timer, service], [1, 5]).catch(() => null);
  const removed: string[] = [];
  for (const path of renewalFiles(inst)) {
    if (!(await entryExists(path))) continue;
    await rm(path, { force: true });
    removed.push(path);
  }
  await rmdir(dirname(legacyCertbotDropIn(inst.system))).catch(() => null);
  return removed;
}
