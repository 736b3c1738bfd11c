// The helper's configuration: the installer's system section, written by root at install into a
// root-owned file. The panel's own configuration is the panel's to write, so the helper never
// reads it: a panel taken over cannot move sites-available, the certificates or the sites root.
import { readFile } from 'node:fs/promises';
import { notRootsAlone } from '../system/common/fs.ts';
import { SystemConfigSchema, type SystemConfig } from '../system/config.ts';
import { SystemError } from '../system/types.ts';

export async function readHelperConfig(file: string): Promise<SystemConfig> {
  // only root may steer root (as another user the helper has no more power than its caller)
  const problem = await notRootsAlone(file);
  if (problem) throw new SystemError(`root helper configuration refused: ${problem}`);
  let parsed;
  try {
    parsed = SystemConfigSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
  } catch (e) {
    throw new SystemError(`root helper configuration ${file} is unreadable: ${(e as Error).message}`);
  }
  if (!parsed.success) throw new SystemError(`root helper configuration ${file} is invalid: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}
