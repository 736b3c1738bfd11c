// A restore uploaded to the running panel, done between its stop and its next start (lib/cli.ts).
// It stands above lib/backup/ because it runs the restore command, which builds a whole panel.
import { existsSync } from 'node:fs';
import { copyFile, rename, rm } from 'node:fs/promises';
import { restore } from './backup-commands.ts';
import { ConfigStore } from './config.ts';
import { errorMessage } from './errors.ts';
import { sectionsOf } from './backup/sections.ts';

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

/**
 * Between the stop of a panel and its next start (lib/cli.ts): the uploaded archive replaces the
 * state, or, failing that, the previous state is back whole. Either way the archive is removed and
 * what happened is one line in the panel's log (the page that asked reads the result on reload).
 */
export async function restoreBetweenRuns(
  configFile: string, archive: string, env: NodeJS.ProcessEnv, cwd: string,
  report: Pick<Console, 'log' | 'error'> = console,
): Promise<void> {
  try {
    const { failures, keptAt } = await replaceWithBackup(configFile, archive, env, cwd);
    for (const failure of failures) report.error(`relay-panel restore: ${failure}`);
    report.log(`relay-panel: restored from the uploaded backup; the previous state is kept at ${keptAt.join(', ')}`);
  } catch (error) {
    report.error(`relay-panel: the restore failed, the previous state is back: ${errorMessage(error)}`);
  } finally {
    await rm(archive, { force: true });
  }
}
