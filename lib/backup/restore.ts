import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { extract } from 'tar';
import { ConfigStore, type Config } from '../config.ts';
import { AppError } from '../errors.ts';
import { CHECKED_SNAPSHOTS_FILE } from '../state/checked-snapshots.ts';
import { rebaseRenewalConfs } from './rebase-acme.ts';
import { sectionsOf, sitesRootOf } from './sections.ts';
import { verifyArchive } from './verify-archive.ts';

/** Moves an unpacked section into place (owners and modes as unpacked); merges into a directory that exists. */
async function place(from: string, to: string): Promise<void> {
  await mkdir(dirname(to), { recursive: true, mode: 0o755 });
  if (!existsSync(to)) {
    const moved = await rename(from, to).then(
      () => true,
      (error: NodeJS.ErrnoException) => {
        if (error.code === 'EXDEV') return false;
        throw error;
      },
    );
    if (moved) return;
  }
  await cp(from, to, { recursive: true, force: true, verbatimSymlinks: true, preserveTimestamps: true });
}

export interface RestoreResult {
  configFile: string;
  config: Config;
  sections: string[];
  /** Where the backed-up box kept its site files: records naming paths under it are re-based. */
  sourceSitesRoot: string;
}

/**
 * What a restore keeps from a configuration already at the target: where this box keeps its
 * files and listens (another data dir, port or layout); the rest (domain, onboarding state, 2FA,
 * session secret) comes from the backup.
 */
function restoredConfig(backedUp: Config, target: Config | null): Config {
  if (!target) return backedUp;
  const { dataDir, staticDir, listen, system } = target;
  return { ...backedUp, dataDir, staticDir, listen, system };
}

/**
 * Restores a backup onto an empty data dir. The archive is read through once and refused before
 * anything is written; then it is unpacked into a scratch directory beside the data dir, each
 * section copied to where this configuration keeps it, and the configuration written last.
 * Re-rendering vhosts and the tunnel authfile is the caller's (it needs the running services).
 */
export async function restoreBackup(configFile: string, archive: string): Promise<RestoreResult> {
  const { manifest, config: backedUp } = await verifyArchive(archive);
  const target = existsSync(configFile) ? (await ConfigStore.open(configFile)).value : null;
  const config = restoredConfig(backedUp, target);
  const sections = sectionsOf(config);
  const dataDir = config.dataDir;
  if (existsSync(dataDir) && (await readdir(dataDir)).length > 0) throw new AppError(409, `The data dir ${dataDir} is not empty`);
  const wanted = manifest.sections.filter((name) => sections.some((s) => s.name === name));
  const missing = manifest.sections.filter((name) => !wanted.includes(name));
  if (missing.length > 0) throw new AppError(400, `This configuration has no place for the sections ${missing.join(', ')}`);

  await mkdir(dirname(dataDir), { recursive: true, mode: 0o700 });
  const scratch = await mkdtemp(join(dirname(dataDir), '.relay-restore-'));
  try {
    // run as root, tar keeps the archived owners (the panel's user); as anyone else, the caller's
    await extract({ file: archive, cwd: scratch, strict: true });
    // an archive's word that its records were checked is not taken: the first start checks them all
    await rm(join(scratch, 'data', CHECKED_SNAPSHOTS_FILE), { recursive: true, force: true });
    // the lineages renew in this box's certbot directories, not the backed-up box's
    if (wanted.includes('letsencrypt')) await rebaseRenewalConfs(join(scratch, 'letsencrypt'), backedUp.system.acme, config.system.acme);
    for (const section of sections.filter((s) => wanted.includes(s.name))) await place(join(scratch, section.name), section.dir);
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
  if (target) await (await ConfigStore.open(configFile)).update(config);
  else await ConfigStore.create(configFile, config);
  return { configFile, config, sections: wanted, sourceSitesRoot: sitesRootOf(backedUp) };
}
