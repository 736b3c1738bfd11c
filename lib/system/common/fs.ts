import { constants } from 'node:fs';
import { chmod, lstat, mkdir, open, readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/** Whether the path itself is there: a link counts even when what it points at is gone. */
export async function entryExists(path: string): Promise<boolean> {
  return lstat(path).then(() => true, () => false);
}

export async function pathExists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Why someone other than root could change this path (missing, a link, another owner, group- or
 * world-writable), or null when only root can: what root runs or obeys must be root's alone.
 */
export async function notRootOnly(path: string): Promise<string | null> {
  const st = await lstat(path).catch(() => null);
  if (!st) return `${path} is missing`;
  if (st.isSymbolicLink()) return `${path} is a symbolic link`;
  if (st.uid !== 0 || (st.mode & 0o022) !== 0) return `${path} is writable by someone other than root`;
  return null;
}

/**
 * Running as root: why someone other than root could change `file` or its directory, or null when
 * only root can. Not root: null (a process with no more power than its caller has nothing to guard).
 */
export async function notRootsAlone(file: string): Promise<string | null> {
  if (process.geteuid?.() !== 0) return null;
  for (const path of [dirname(file), file]) {
    const problem = await notRootOnly(path);
    if (problem) return problem;
  }
  return null;
}

/** The file's text, or null when it does not exist; any other error is thrown. */
export async function readOrNull(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** How root opens a file a less privileged user may have replaced: never through a link, never blocking on a FIFO. */
export const NO_FOLLOW_NO_BLOCK = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;

/**
 * What was appended to a file since `offset`, where that read began (`from`) and the offset after it
 * (`size`). A file shorter than `offset` was truncated or rotated and is read from the start.
 * `rootSafe`: opened NO_FOLLOW_NO_BLOCK and read only when it is a regular file (else it throws);
 * `maxBytes`: read at most that much now, the rest at the next call.
 */
export async function readFromOffset(path: string, offset: number, o: { rootSafe?: boolean; maxBytes?: number } = {}): Promise<{ text: string; from: number; size: number }> {
  const fh = await open(path, o.rootSafe ? NO_FOLLOW_NO_BLOCK : 'r');
  try {
    const st = await fh.stat();
    if (o.rootSafe && !st.isFile()) throw new Error(`${path} is not a regular file`);
    const from = st.size < offset ? 0 : offset;
    const buf = Buffer.alloc(Math.min(st.size - from, o.maxBytes ?? Infinity));
    const { bytesRead } = buf.length ? await fh.read(buf, 0, buf.length, from) : { bytesRead: 0 };
    return { text: buf.subarray(0, bytesRead).toString('utf8'), from, size: from + bytesRead };
  } finally {
    await fh.close();
  }
}

/**
 * mkdir whose new directories really get `mode`: the panel's unit runs with UMask=0027, which
 * would make a site's folders 0750, and nginx's workers (another user) could not enter them.
 * Returns the first directory it made, like mkdir's recursive form.
 */
export async function mkdirWithMode(path: string, mode: number, recursive = false): Promise<string | undefined> {
  const first = recursive ? await mkdir(path, { recursive: true, mode }) : (await mkdir(path, { mode }), path);
  if (first === undefined) return undefined;
  for (let dir = path; ; dir = dirname(dir)) {
    await chmod(dir, mode);
    if (dir === first || dirname(dir) === dir) break;
  }
  return first;
}

/** Bytes of every regular file under the directory (symlinks are not followed). */
export async function directorySize(dir: string): Promise<number> {
  let total = 0;
  for (const dirent of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const full = join(dir, dirent.name);
    if (dirent.isDirectory()) total += await directorySize(full);
    else if (dirent.isFile()) total += (await lstat(full)).size;
  }
  return total;
}
