// The root helper's `dns-plugin` action: apt-get install (or remove, a failed switch's undo) of one
// of certbot's DNS plugin packages, for a panel whose user cannot run apt-get. The name is checked
// against the exact list again here (the protocol's schema did so first): a package's maintainer
// scripts run as root, so no other name ever reaches apt-get.
// The helper's own unit cannot install anything (ProtectSystem=strict, a narrow capability set,
// RestrictSUIDSGID), and must keep that sandbox; so apt-get runs as a transient service that
// systemd starts for it (systemd-run, beside the configured systemctl: the same bus the helper's
// systemctl uses), waited for, its output piped back. argv arrays throughout, the installer's
// apt-get arguments.
import { dirname, join } from 'node:path';
import { programFailure, run, summarizeStderr } from '../system/common/exec.ts';
import type { SystemConfig } from '../system/config.ts';
import { aptInstallArgs, aptRemoveArgs } from '../system/packages/apt.ts';
import { isDnsPluginPackage } from '../system/packages/dns-plugin-packages.ts';
import { SystemError } from '../system/types.ts';

export type DnsPluginOp = 'install' | 'remove';

/** One transient unit name: a second request cannot run beside a first that is still going. */
const DNS_PLUGIN_UNIT = 'relay-panel-dns-plugin';

/** apt-get's arguments; throws for any name off the list. */
export function dnsPluginArgs(op: DnsPluginOp, name: string): string[] {
  if (!isDnsPluginPackage(name)) throw new SystemError(`Refused: ${JSON.stringify(name)} is not one of certbot's DNS plugin packages`, undefined, undefined, 'refused');
  return op === 'install' ? aptInstallArgs([name]) : aptRemoveArgs([name]);
}

/** systemd-run's argv for apt-get with these arguments. */
function transientAptArgs(config: SystemConfig, aptArgs: string[]): string[] {
  return [
    `--unit=${DNS_PLUGIN_UNIT}`, '--description=relay-panel: certbot DNS plugin package', '--quiet', '--wait', '--pipe', '--collect',
    '--service-type=exec', '--setenv=DEBIAN_FRONTEND=noninteractive', '--', config.binaries.aptGet, ...aptArgs,
  ];
}

export async function dnsPluginPackage(config: SystemConfig, op: DnsPluginOp, name: string): Promise<void> {
  const args = transientAptArgs(config, dnsPluginArgs(op, name));
  try {
    await run(join(dirname(config.binaries.systemctl), 'systemd-run'), args, { timeoutMs: config.timeouts.certbotMs * 5 });
  } catch (e) {
    throw programFailure(e, 'apt-get', `apt-get could not ${op} ${name}`, summarizeStderr);
  }
}
