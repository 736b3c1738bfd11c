// Packages on the host through dpkg-query and apt-get, with the installer's arguments (apt.ts).
// apt-get needs root: a panel run as its own user installs and removes through the root helper,
// which takes only certbot's DNS plugin packages (dns-plugin-packages.ts); without a helper, a panel
// that is not root says which package the operator installs instead.
import type { SystemConfig } from '../config.ts';
import { programFailure, run } from '../common/exec.ts';
import { summarizeStderr } from '../common/exec.ts';
import { SystemError } from '../errors.ts';
import { aptInstallArgs, aptRemoveArgs, assertPackageName, DPKG_STATUS_ARGS, isInstalledStatus } from './apt.ts';
import { isDnsPluginPackage, type DnsPluginPackage } from './dns-plugin-packages.ts';
import type { PackagesAdapter } from './types.ts';

/** The root helper's apt-get (root-client.ts), on a box that has one. */
export interface RootPackages {
  dnsPlugin(op: 'install' | 'remove', name: DnsPluginPackage): Promise<void>;
}

export function createHostPackages(config: SystemConfig, root: RootPackages | null = null): PackagesAdapter {
  const throughRoot = (op: 'install' | 'remove', name: string) => {
    if (!isDnsPluginPackage(name)) throw new SystemError(`${name} is not one of certbot's DNS plugin packages: the root helper installs nothing else`, 'apt-get');
    return root!.dnsPlugin(op, name);
  };
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const apt = async (args: string[], what: string) => {
    try {
      await run(config.binaries.aptGet, args, { timeoutMs: config.timeouts.certbotMs * 5, env });
    } catch (e) {
      throw programFailure(e, 'apt-get', what, summarizeStderr);
    }
  };
  return {
    async installed(name) {
      const r = await run(config.binaries.dpkgQuery, DPKG_STATUS_ARGS(assertPackageName(name)), { timeoutMs: config.timeouts.defaultMs, okExitCodes: [1] });
      return isInstalledStatus(r.stdout);
    },
    async install(name) {
      assertPackageName(name);
      if (root) return throughRoot('install', name);
      if (config.rootHelper || (process.getuid && process.getuid() !== 0)) {
        throw new SystemError(`${name} is not installed, and only root can install it: run apt-get install ${name} as root, then switch again`, 'apt-get');
      }
      await apt(aptInstallArgs([name]), `apt-get could not install ${name}`);
    },
    async remove(name) {
      if (root) return throughRoot('remove', assertPackageName(name));
      await apt(aptRemoveArgs([assertPackageName(name)]), `apt-get could not remove ${name}`);
    },
  };
}
