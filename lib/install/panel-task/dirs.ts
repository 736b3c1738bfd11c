// The `dirs` task: directories inside the panel's own, made by the panel's user. A link, a file or
// a directory of another owner where one should be is refused by name: following it is exactly
// what root must never do (a link to a root-only directory would get the panel's keys and mode).
import { chmod, lstat, mkdir } from 'node:fs/promises';
import type { PanelDir } from './protocol.ts';

function kind(st: Awaited<ReturnType<typeof lstat>>): string {
  if (st.isSymbolicLink()) return 'a symbolic link';
  if (st.isFIFO()) return 'a FIFO';
  return st.isFile() ? 'a file' : 'not a directory';
}

export async function makeDirs(dirs: readonly PanelDir[]): Promise<{ made: string[] }> {
  const me = process.geteuid!();
  const made: string[] = [];
  for (const { path, mode } of dirs) {
    const st = await lstat(path).catch(() => null);
    if (!st) {
      await mkdir(path, { mode });
      await chmod(path, mode);
      made.push(path);
      continue;
    }
    if (!st.isDirectory()) throw new Error(`${path} is ${kind(st)}, not a directory: move it aside, then run install again`);
    if (st.uid !== me) throw new Error(`${path} belongs to uid ${st.uid}, not to the panel's user (uid ${me}): move it aside, then run install again`);
    if ((st.mode & 0o7777) !== mode) {
      await chmod(path, mode);
      made.push(path);
    }
  }
  return { made };
}
