// A directory of root's TLS material (the copies, the per-name certificate map): made 0700, or
// checked to be a directory (never a link) of this process's own user and narrowed to 0700.
import { chmod, lstat, mkdir } from 'node:fs/promises';
import { SystemError } from '../types.ts';

/** `what`: what cannot be written there when it is not, for the error. */
export async function ensureOwnDir(dir: string, what: string): Promise<void> {
  const euid = process.geteuid?.() ?? 0;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const st = await lstat(dir);
  if (!st.isDirectory()) throw new SystemError(`${dir} is not a directory: ${what} cannot be written there`);
  if (st.uid !== euid) throw new SystemError(`${dir} belongs to uid ${st.uid}, not ${euid}: ${what} cannot be written there`);
  if ((st.mode & 0o7777) !== 0o700) await chmod(dir, 0o700);
}
