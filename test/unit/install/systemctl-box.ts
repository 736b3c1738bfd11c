// An installation whose systemctl answers `state` for is-active and `restarts` for NRestarts (null:
// the call fails, as without a bus): what the crash-loop check and the health wait read of a unit.
import { openInstallation, type Installation, type Runner } from '../../../lib/install/installation.ts';
import type { CommandOptions } from '../../../lib/install/options.ts';

export function systemctlBox(state: string, restarts: string | null, healthTimeoutMs = 10_000): { calls: string[]; inst: Installation } {
  const calls: string[] = [];
  const runner: Runner = async (_binary, args) => {
    calls.push(args.join(' '));
    if (args[0] === 'is-active') return { stdout: `${state}\n`, stderr: '', exitCode: state === 'active' ? 0 : 3 };
    if (restarts === null) throw new Error('systemctl exited with 1: Failed to connect to bus');
    return { stdout: `${restarts}\n`, stderr: '', exitCode: 0 };
  };
  const options: CommandOptions = {
    prefix: '/nonexistent', json: true, user: 'relay-panel', harden: false, packages: false, downloads: false, system: {},
    release: '/nonexistent', node: process.execPath, healthTimeoutMs, purge: false,
  };
  return { calls, inst: openInstallation(options, runner) };
}
