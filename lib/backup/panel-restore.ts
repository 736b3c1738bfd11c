import { rm } from 'node:fs/promises';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import { besideDataDir, type BackupSummary } from './summary.ts';
import type { RestoreRequests } from './restore-requests.ts';
import { sectionsOf } from './sections.ts';
import { keepUpload } from './staging.ts';

type Upload = Parameters<typeof keepUpload>[0];

export const RESTORE_UNSUPPORTED = 'This panel cannot restore itself: it was not started by its server command (node dist/server.mjs); use the restore command';

/** POST /api/backup/inspect: the restore command's checks and what the archive holds; nothing kept. */
export async function inspectUpload(upload: Upload, config: Config): Promise<BackupSummary> {
  const beside = besideDataDir(config.dataDir);
  const file = await keepUpload(upload, beside);
  try {
    return await checkedSummary(file, config);
  } finally {
    await rm(file, { force: true });
  }
}

/**
 * POST /api/backup/restore: the same checks, then the archive is handed to the process, which
 * replaces the state once the answer is out (lib/cli.ts). A refused archive is removed and nothing
 * else is touched.
 */
export async function stageRestore(upload: Upload, config: Config, requests: RestoreRequests): Promise<{ summary: BackupSummary; next: string }> {
  if (!requests.supported) throw new AppError(409, RESTORE_UNSUPPORTED);
  const file = await keepUpload(upload, besideDataDir(config.dataDir));
  try {
    const summary = await checkedSummary(file, config);
    requests.request(file);
    return { summary, next: requests.next };
  } catch (error) {
    await rm(file, { force: true });
    throw error;
  }
}

/** The archive's summary, refused as the restore command would refuse it: not ours, or sections this box has no place for. */
async function checkedSummary(file: string, config: Config): Promise<BackupSummary> {
  // loaded with its first archive: tar and zlib are not part of a start (cold start)
  const { inspectArchive } = await import('./inspect.ts');
  const summary = await inspectArchive(file, besideDataDir(config.dataDir));
  const places = new Set<string>(sectionsOf(config).map((s) => s.name));
  const missing = summary.sections.filter((name) => !places.has(name));
  if (missing.length > 0) throw new AppError(400, `This configuration has no place for the sections ${missing.join(', ')}`);
  return summary;
}
