import { existsSync } from 'node:fs';
import { copyFile, rename, rm } from 'node:fs/promises';
import { restore } from '../backup-commands.ts';
import { ConfigStore } from '../config.ts';
import { sectionsOf } from './sections.ts';

export interface Replaced {
  /** What the host re-render could not do (the restore command prints the same). */
  failures: string[];
  /** Where the state before the restore was moved: `<dir>.before-restore-<time>` of each section and of the configuration file. */
  keptAt: string[];
}

/**
 * The restore of a running panel, done while it is stopped: each section's directory and the
 * configuration file are moved aside (renames: instant and whole), the restore command's steps run
 * on the emptied places, and on any failure what they wrote is removed and the old directories and
 * file are moved back. The previous state stays beside, named `.before-restore-<time>`, until the
 * operator removes it.
 */
export async function replaceWithBackup(configFile: string, archive: string, env: NodeJS.ProcessEnv, cwd: string, now = new Date()): Promise<Replaced> {
  const suffix = `.before-restore-${now.toISOString().replaceAll(':', '-').replace(/\.\d+Z$/, 'Z')}`;
  const config = (await ConfigStore.open(configFile)).value;
  const moved: { from: string; to: string }[] = [];
  await copyFile(configFile, configFile + suffix);
  try {
    for (const { dir } of sectionsOf(config)) {
      if (!existsSync(dir)) continue;
      await rename(dir, dir + suffix);
      moved.push({ from: dir, to: dir + suffix });
    }
    const failures = await restore(configFile, archive, env, cwd);
    return { failures, keptAt: [configFile + suffix, ...moved.map((m) => m.to)] };
  } catch (error) {
    for (const { from, to } of moved.reverse()) {
      await rm(from, { recursive: true, force: true });
      await rename(to, from);
    }
    await rename(configFile + suffix, configFile);
    throw error;
  }
}
