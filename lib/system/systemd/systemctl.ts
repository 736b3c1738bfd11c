// systemctl as the host adapters run it themselves (root-actions.ts: directRootActions).
import type { SystemConfig } from '../config.ts';
import { run, type ExecResult } from '../common/exec.ts';

export function systemctl(config: SystemConfig, args: string[], okExitCodes?: number[]): Promise<ExecResult> {
  return run(config.binaries.systemctl, args, { timeoutMs: config.timeouts.defaultMs, ...(okExitCodes ? { okExitCodes } : {}) });
}
