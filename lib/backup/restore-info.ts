import { userInfo } from 'node:os';
import { dirname } from 'node:path';
import { z } from 'zod';
import type { Config } from '../config.ts';
import type { RestoreRequests } from './restore-requests.ts';

export const RestoreInfo = z.object({
  /** `sandbox`: everything lives in the data dir; `host`: the box's directories, restored as the panel's user. */
  driver: z.enum(['sandbox', 'host']),
  /** Whether POST /api/backup/restore works here, and what happens after it. */
  inPanel: z.boolean(),
  next: z.string(),
  configFile: z.string(),
  dataDir: z.string(),
  /** The restore command for this box's configuration, to run with the panel stopped and the data dir empty or moved away. */
  command: z.string(),
});
export type RestoreInfo = z.infer<typeof RestoreInfo>;

/** How this box restores: in the panel, or with the command written for its own paths. */
export function restoreInfo(configFile: string, config: Config, requests: RestoreRequests, server = process.argv[1] ?? 'dist/server.mjs'): RestoreInfo {
  const driver = config.system.driver;
  const from = driver === 'sandbox' ? 'relay-panel-backup.tar.gz' : `${dirname(config.dataDir)}/relay-panel-backup.tar.gz`;
  return {
    driver,
    inPanel: requests.supported,
    next: requests.next,
    configFile,
    dataDir: config.dataDir,
    // on a host the command runs as the panel's user: it refuses root when the files are that user's
    command: `${driver === 'host' ? `setsid -w runuser -u ${userInfo().username} -- ` : ''}${process.execPath} ${server} restore --config ${configFile} --from ${from}`,
  };
}
