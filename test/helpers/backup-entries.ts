// The paths a sandbox box's backup archive holds, for tests of what a backup leaves out.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { list, type ReadEntry } from 'tar';
import { backupStream } from '../../lib/backup/create-archive.ts';
import { ConfigSchema } from '../../lib/config.ts';

/** The entries of a backup of the onboarded sandbox box whose data is `dataDir` (its config file written in `dir`). */
export async function backupEntries(dir: string, dataDir: string): Promise<string[]> {
  const configFile = join(dir, 'config.json');
  await writeFile(configFile, '{}');
  const config = ConfigSchema.parse({ ip: '127.0.0.1', domain: 'relay.test', email: 'ops@relay.test', dataDir, onboarding: { status: 'COMPLETED' }, system: { driver: 'sandbox' } });
  const entries: string[] = [];
  const lister = list({ onReadEntry: (entry: ReadEntry) => void entries.push(entry.path) });
  await pipeline(await backupStream(configFile, config, new Date(0)), lister as unknown as Writable);
  return entries;
}
