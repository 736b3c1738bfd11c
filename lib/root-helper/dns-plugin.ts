// The root helper's `dns-plugin` action: apt-get install (or remove, a failed switch's undo) of one
// of certbot's DNS plugin packages, for a panel whose user cannot run apt-get. The name is checked
// against the exact list again here (the protocol's schema did so first): a package's maintainer
// scripts run as root, so no other name ever reaches apt-get. apt-get runs with an argv array and
// the installer's arguments.
import { programFailure, run, summarizeStderr } from '../system/common/exec.ts';
import type { SystemConfig } from '../system/config.ts';
import { aptInstallArgs } from '../system/packages/apt.ts';
import { isDnsPluginPackage } from '../system/packages/dns-plugin-packages.ts';
import { SystemError } from '../system/types.ts';

export type DnsPluginOp = 'install' | 'remove';

/** The argv apt-get runs with; throws for any name off the list. */
export function dnsPluginArgs(op: DnsPluginOp, name: string): string[] {
  if (!isDnsPluginPackage(name)) throw new SystemError(`Refused: ${JSON.stringify(name)} is not one of certbot's DNS plugin packages`, undefined, undefined, 'refused');
  return op === 'install' ? aptInstallArgs([name]) : ['remove', '-y', name];
}

export async function dnsPluginPackage(config: SystemConfig, op: DnsPluginOp, name: string): Promise<void> {
  const args = dnsPluginArgs(op, name);
  try {
    await run(config.binaries.aptGet, args, { timeoutMs: config.timeouts.certbotMs * 5, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
  } catch (e) {
    throw programFailure(e, 'apt-get', `apt-get could not ${op} ${name}`, summarizeStderr);
  }
}
