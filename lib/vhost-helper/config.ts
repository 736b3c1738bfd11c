// The helper's configuration: the installer's system section, written by root at install into a
// root-owned file. The panel's own configuration is the panel's to write, so the helper never
// reads it: a panel taken over cannot move sites-available, the certificates or the sites root.
import { lstat, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { SystemConfigSchema, type SystemConfig } from '../system/config.ts';
import { SystemError } from '../system/types.ts';

/** Refuses a file (or directory) another user could have changed: only root may steer root. */
async function assertRootOnly(path: string): Promise<void> {
  const st = await lstat(path).catch(() => null);
  if (!st) throw new SystemError(`vhost helper configuration ${path} is missing`);
  if (st.isSymbolicLink() || st.uid !== 0 || (st.mode & 0o022) !== 0) {
    throw new SystemError(`vhost helper configuration ${path} must be root's and writable by root only`);
  }
}

export async function readHelperConfig(file: string): Promise<SystemConfig> {
  // as another user the helper has no more power than its caller: nothing to guard
  if (process.geteuid?.() === 0) {
    await assertRootOnly(dirname(file));
    await assertRootOnly(file);
  }
  let parsed;
  try {
    parsed = SystemConfigSchema.safeParse(JSON.parse(await readFile(file, 'utf8')));
  } catch (e) {
    throw new SystemError(`vhost helper configuration ${file} is unreadable: ${(e as Error).message}`);
  }
  if (!parsed.success) throw new SystemError(`vhost helper configuration ${file} is invalid: ${parsed.error.issues[0]?.message}`);
  return parsed.data;
}
