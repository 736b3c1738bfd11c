import { dirname } from 'node:path';
import { z } from 'zod';

// What the handlers declare about an archive, apart from the code that reads one (lib/backup/inspect.ts):
// the route table loads this at start, and reading an archive loads tar and zlib, which a start does not need.

export const BackupSummary = z.object({
  created: z.string(),
  domain: z.string().nullable(),
  onboarding: z.string(),
  sections: z.array(z.string()),
  counts: z.object({
    tunnels: z.number(), sites: z.number(), users: z.number(), agents: z.number(),
    certificates: z.number(), plugins: z.number(), webhooks: z.number(),
  }),
});
export type BackupSummary = z.infer<typeof BackupSummary>;

/** Where uploads and scratch directories go: beside the data dir, on its file system, never inside it (a restore moves it). */
export const besideDataDir = (dataDir: string) => dirname(dataDir);
