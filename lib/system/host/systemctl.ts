// systemctl calls shared by the host adapters.
import { readFile } from 'node:fs/promises';
import { writeFileAtomic } from '../atomic-write.ts';
import type { SystemConfig } from '../config.ts';
import { run, type ExecResult } from '../exec.ts';
import { parseActiveState } from '../parsers/systemd.ts';
import type { ServiceStatus } from '../types.ts';

export function systemctl(config: SystemConfig, args: string[], okExitCodes?: number[]): Promise<ExecResult> {
  return run(config.binaries.systemctl, args, { timeoutMs: config.timeouts.defaultMs, ...(okExitCodes ? { okExitCodes } : {}) });
}

/** A unit's ActiveState word; 'unknown' when systemctl cannot tell (no systemd, not installed). */
export function isActive(config: SystemConfig, unit: string): Promise<ServiceStatus['status']> {
  // is-active answers through its exit status too (3 = inactive); only its word matters
  return systemctl(config, ['is-active', unit], [1, 2, 3, 4]).then((r) => parseActiveState(r.stdout), () => 'unknown' as const);
}

/**
 * Writes the unit only when its content differs: the installer puts the units in place as root,
 * so the panel, running as its own user without write access to the unit directory, finds them
 * current and only enables them.
 */
export async function installUnit(config: SystemConfig, unit: string, content: string): Promise<void> {
  const file = `${config.systemd.unitDir}/${unit}.service`;
  if ((await readFile(file, 'utf8').catch(() => null)) !== content) await writeFileAtomic(file, content, 0o644);
  await systemctl(config, ['daemon-reload']);
  await systemctl(config, ['enable', '--now', unit]);
}
