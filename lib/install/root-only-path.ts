// Whether only root can change what a path leads to: every directory on the way root's and not
// writable by anyone else, every link on the way root's (followed, as the kernel would), the last
// entry root's. The give-back asks it of the places it works in (the parent of the directory it
// gives back, its quarantine) and of every path a renewal configuration it gives back names: root's
// certbot reads and writes there, so none of them may be a place the panel's user can change.
//
// A world-writable directory with the sticky bit (/tmp, /dev/shm) is allowed on the way only when
// the next entry exists and is root's: the sticky bit keeps others from renaming or removing it.
import { lstat, readlink } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';

export type RootOnly = { real: string } | { reason: string };

const MAX_LINKS = 40;

function typeOf(st: Stats): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  return 'not a regular file';
}

const lstatOrNull = (path: string) => lstat(path).catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? null : Promise.reject(e)));

/**
 * `{ real }`: the path with every link resolved, when only root can change it (a missing last
 * part counts when its directory is root's alone: root would create it); else `{ reason }`.
 * `directory`: the path must be an existing directory.
 */
export async function rootOnlyPath(path: string, o: { directory?: boolean } = {}): Promise<RootOnly> {
  if (!isAbsolute(path)) return { reason: `${path} is not an absolute path` };
  const rootSt = await lstat('/');
  if (rootSt.uid !== 0 || (rootSt.mode & 0o022) !== 0) return { reason: '/ is writable by someone other than root' };
  const todo = path.split('/').filter(Boolean);
  let cur = '/';
  // the directory `cur` lets others create entries (sticky): the next one must be there and root's
  let stickyOpen = false;
  let links = 0;
  while (todo.length > 0) {
    const part = todo.shift()!;
    if (part === '.') continue;
    if (part === '..') {
      cur = dirname(cur); // cur is already resolved and checked: its parent was checked before it
      stickyOpen = false;
      continue;
    }
    const next = join(cur, part);
    const st = await lstatOrNull(next);
    if (stickyOpen && (!st || st.uid !== 0)) return { reason: `${cur} lets every user create ${part} in it` };
    stickyOpen = false;
    if (!st) {
      if (o.directory) return { reason: `${next} is missing` };
      return { real: join(next, ...todo) };
    }
    if (st.isSymbolicLink()) {
      if (st.uid !== 0) return { reason: `${next} is a link owned by uid ${st.uid}` };
      if (++links > MAX_LINKS) return { reason: `${path} goes through more than ${MAX_LINKS} links` };
      const target = await readlink(next);
      if (isAbsolute(target)) cur = '/';
      todo.unshift(...target.split('/').filter(Boolean));
      continue;
    }
    if (st.isDirectory()) {
      if (st.uid !== 0) return { reason: `${next} is owned by uid ${st.uid}` };
      if ((st.mode & 0o022) !== 0) {
        if ((st.mode & 0o1000) === 0 || todo.length === 0) return { reason: `${next} is writable by someone other than root` };
        stickyOpen = true;
      }
      cur = next;
      continue;
    }
    if (todo.length > 0) return { reason: `${next} is not a directory` };
    if (o.directory) return { reason: `${next} is not a directory` };
    if (!st.isFile()) return { reason: `${next} is ${typeOf(st)}` };
    if (st.uid !== 0 || (st.mode & 0o022) !== 0) return { reason: `${next} is writable by someone other than root` };
    return { real: next };
  }
  return { real: cur };
}
