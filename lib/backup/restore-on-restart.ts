import { rm } from 'node:fs/promises';
import { errorMessage } from '../errors.ts';
import { replaceWithBackup } from './replace.ts';

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
