import { randomBytes } from 'node:crypto';
import { open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { mapAtMost } from '../map-at-most.ts';
import { needsSync } from './unsynced-dirs.ts';

export interface AtomicWriteOptions {
  /** 0o600 for anything secret. */
  mode?: number;
  /**
   * false for a cache, whose loss costs only work: the rename still leaves the old or the new
   * content whole to every reader, but a crash may leave either, or an empty file, after a reboot.
   */
  sync?: boolean;
}

const tempPrefix = (path: string) => `.${basename(path)}.`;

/**
 * Replaces a file so that a crash at any instant leaves either the old or the new content:
 * unique temp file, fsync, rename over the target, fsync the directory (no fsync with `sync: false`).
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const temp = await writeTemp(path, data, options.mode ?? 0o644, options.sync ?? true);
  await replaceWith(temp, path);
  if (options.sync === false) return;
  // The new content is in place from here on. Reporting a failed directory fsync as a failed
  // write would make callers undo a change that readers (and the next start) already see.
  await syncDirectory(dirname(path)).catch(() => {});
}

export interface AtomicFile {
  path: string;
  data: string | Uint8Array;
  mode?: number;
}

/** Temp files written and synced at once: the file system's journal takes many fsyncs together. */
const TEMPS_AT_ONCE = 16;

/**
 * Many files replaced as writeFileAtomic replaces one, each either old or new after a crash, with
 * their temp files written and synced several at a time and each directory synced once at the
 * end: 857 vhosts one after the other were 1,714 fsyncs in a row. When a temp file cannot be
 * written, none is renamed; a rename that fails leaves the ones before it replaced (the caller
 * that needs all or nothing restores what it read).
 */
export async function writeFilesAtomic(files: readonly AtomicFile[]): Promise<void> {
  const temps: Array<string | undefined> = new Array(files.length);
  try {
    // a failure starts no further write and is thrown once the running ones ended: every temp made is in `temps`
    await mapAtMost(files, TEMPS_AT_ONCE, async (file, at) => {
      temps[at] = await writeTemp(file.path, file.data, file.mode ?? 0o644);
    });
  } catch (error) {
    await Promise.all(temps.map((temp) => temp && rm(temp, { force: true })));
    throw error;
  }
  let at = 0;
  try {
    for (; at < files.length; at++) await replaceWith(temps[at]!, files[at]!.path);
  } catch (error) {
    await Promise.all(temps.slice(at + 1).map((temp) => rm(temp!, { force: true })));
    throw error;
  }
  await Promise.all([...new Set(files.map((file) => dirname(file.path)))].map((dir) => syncDirectory(dir).catch(() => {})));
}

/** A unique temp file beside `path` holding `data`, with `mode`, synced to disk unless `sync` is false. */
async function writeTemp(path: string, data: string | Uint8Array, mode: number, sync = true): Promise<string> {
  const temp = join(dirname(path), `${tempPrefix(path)}${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const file = await open(temp, 'wx', mode);
  try {
    await file.writeFile(data);
    await file.chmod(mode); // the umask may have narrowed it; the caller's mode is the contract
    if (sync && needsSync(temp)) await file.sync();
  } catch (error) {
    await file.close();
    await rm(temp, { force: true });
    throw error;
  }
  await file.close();
  return temp;
}

async function replaceWith(temp: string, path: string): Promise<void> {
  try {
    await rename(temp, path).catch(async (error: NodeJS.ErrnoException) => {
      // workerd's in-memory node:fs will not rename over an existing file (EEXIST; POSIX rename(2)
      // replaces a file and never answers that). Its files die with the isolate, so there is no
      // crash to survive: remove the target, then rename.
      if (error.code !== 'EEXIST') throw error;
      await rm(path, { force: true });
      await rename(temp, path);
    });
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

export async function syncDirectory(dir: string): Promise<void> {
  if (!needsSync(dir)) return;
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Temp files of writes that a crash interrupted; the target file itself is intact. */
export async function removeStaleTempFiles(path: string, listed?: readonly string[]): Promise<void> {
  const prefix = tempPrefix(path);
  const names = listed ?? (await readdir(dirname(path)).catch(() => [] as string[]));
  await Promise.all(
    names
      .filter((name) => name.startsWith(prefix) && name.endsWith('.tmp'))
      .map((name) => rm(join(dirname(path), name), { force: true })),
  );
}
