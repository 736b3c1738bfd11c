// systemctl calls shared by the host adapters.
import type { SystemConfig } from '../config.ts';
import { run } from '../exec.ts';

export function systemctl(config: SystemConfig, args: string[]) {
  return run(config.binaries.systemctl, args, { timeoutMs: config.timeouts.defaultMs });
}

export async function installUnit(config: SystemConfig, unit: string, content: string, write: (path: string, text: string) => Promise<void>): Promise<void> {
  await write(`${config.systemd.unitDir}/${unit}.service`, content);
  await systemctl(config, ['daemon-reload']);
  await systemctl(config, ['enable', '--now', unit]);
}
