// A unit's installation by a host adapter (chisel, Authelia), through whichever RootActions the
// system has: the programs themselves, or the root helper.
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../common/atomic-write.ts';
import type { SystemConfig } from '../config.ts';
import type { ServiceName } from '../types.ts';
import type { RootActions } from '../root/root-actions.ts';

/**
 * Writes the unit only when its content differs: the installer puts the units in place as root,
 * so the panel, running as its own user without write access to the unit directory, finds them
 * current and only enables them.
 */
export async function installUnit(config: SystemConfig, root: RootActions, unit: ServiceName, content: string): Promise<void> {
  const file = `${config.systemd.unitDir}/${config.units[unit]}.service`;
  if ((await readFile(file, 'utf8').catch(() => null)) !== content) {
    await writeFileAtomic(file, content, 0o644);
    await root.daemonReload();
  }
  await root.controlUnit(unit, 'enable');
}
