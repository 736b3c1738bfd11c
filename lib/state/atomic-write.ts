import { randomBytes } from 'node:crypto';
import { open, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export interface AtomicWriteOptions {
  /** 0o600 for anything secret. */
  mode?: number;
}

const tempPrefix = (path: string) => `.${basename(path)}.`;

/**
 * Replaces a file so that a crash at any instant leaves either the old or the new content:
 * unique temp file, fsync, rename over the target, fsync the directory.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const dir = dirname(path);
  const temp = join(dir, `${tempPrefix(path)}${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  const mode = options.mode ?? 0o644;
  const file = await open(temp, 'wx', mode);
  try {
    await file.writeFile(data);
    await file.chmod(mode); // the umask may have narrowed it; the caller's mode is the contract
    await file.sync();
  } catch (error) {
    await file.close();
    await rm(temp, { force: true });
    throw error;
  }
  await file.close();
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
  // The new content is in place from here on. Reporting a failed directory fsync as a failed
  // write would make callers undo a change that readers (and the next start) already see.
  await syncDirectory(dir).catch(() => {});
}

export async function syncDirectory(dir: string): Promise<void> {
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
