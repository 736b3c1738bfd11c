// What the root helper's vhost tests set up alike: a helper configuration under a test's own folder
// (/bin/true plays nginx) and the lineages certbot would leave in its live directory.
import { copyFile, mkdir, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { systemConfig, type SystemConfig } from '../../../../lib/system/config.ts';
import type { CertPaths } from '../../../../lib/system/types.ts';

export const SITES = '/var/www/relay-sites';

/**
 * The helper's configuration with every path under `dir`. A panel with a user of its own (runAs null
 * is a root panel: no copies); root stands for it, as the test's files are the test's user's
 * (tls-owner.ts: the helper's own user when not root).
 */
export function helperVhostConfig(dir: string): SystemConfig {
  return systemConfig({
    driver: 'host',
    binaries: { nginx: '/bin/true' },
    nginx: {
      sitesAvailable: join(dir, 'available'), sitesEnabled: join(dir, 'enabled'), tlsDir: join(dir, 'tls'),
      selfSignedDir: join(dir, 'self-signed'), errorLog: join(dir, 'error.log'), reloadCheckMs: 0, helpDir: join(dir, 'help'),
    },
    acme: { configDir: join(dir, 'le'), webroot: join(dir, 'webroot') },
    pki: { dir: join(dir, 'pki') },
    sites: { root: SITES },
    systemd: { runAs: 'root' },
  });
}

export const livePath = (c: SystemConfig, name: string, file: 'fullchain' | 'privkey') => join(c.acme.configDir, 'live', name, `${file}.pem`);

/** What certbot leaves for a lineage: archive/<name>/{fullchain,privkey}<n>.pem and the live links to them. */
export async function certbotLineage(c: SystemConfig, name: string, pair: CertPaths, n = 1): Promise<void> {
  const archive = join(c.acme.configDir, 'archive', name);
  await mkdir(archive, { recursive: true });
  await mkdir(join(c.acme.configDir, 'live', name), { recursive: true });
  await copyFile(pair.fullchain, join(archive, `fullchain${n}.pem`));
  await copyFile(pair.privkey, join(archive, `privkey${n}.pem`));
  for (const file of ['fullchain', 'privkey'] as const) {
    await rm(livePath(c, name, file), { force: true });
    await symlink(`../../archive/${name}/${file}${n}.pem`, livePath(c, name, file));
  }
}
