// A file of the panel's user given to root as a new file, not chowned in place: a process of that
// user may hold the old one open for writing, and a chown does not take that away (it could write a
// pre_hook into a renewal configuration after the check). The copy is made beside its destination
// under a temporary name (O_EXCL, never through a link), made root's with the original's mode less
// setuid, setgid and group/other write, its times kept, synced, and renamed in: the old inode is
// unlinked and whatever still holds it writes into nothing root reads.
import { randomBytes } from 'node:crypto';
import type { Stats } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { GiveBackFs } from './give-back-fs.ts';
import { safeMode } from './give-back-rules.ts';

/** The prefix of the temporary names: a root file of that name is a copy a stopped run left. */
export const TEMP_PREFIX = '.relay-panel-give-back-';

/** The bytes of an open file, at most `max` (null when there are more). */
export async function readUpTo(h: FileHandle, max: number): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let total = 0;
  for (;;) {
    const buffer = Buffer.alloc(Math.min(64 * 1024, max + 1 - total));
    const { bytesRead } = await h.read(buffer, 0, buffer.length, total);
    if (bytesRead === 0) return Buffer.concat(chunks);
    total += bytesRead;
    if (total > max) return null;
    chunks.push(buffer.subarray(0, bytesRead));
  }
}

/** Files larger than this are not copied (a sparse file of the panel's user must not fill the disk). */
export const MAX_COPY = 64 * 1024 * 1024;

/**
 * Copies the open regular file `src` (`st` its fstat), or the bytes already read from it (what was
 * checked is what is kept), to a new file of root's at `dest`, replacing what is there. False, and
 * nothing written, when it holds more than `maxBytes`.
 */
export async function copyToRoot(fs: GiveBackFs, src: FileHandle | Buffer, st: Stats, dest: string, maxBytes = MAX_COPY): Promise<boolean> {
  if (st.size > maxBytes && !Buffer.isBuffer(src)) return false;
  const tmp = join(dirname(dest), `${TEMP_PREFIX}${randomBytes(8).toString('hex')}`);
  const out = await fs.createFile(tmp);
  let done = false;
  try {
    if (Buffer.isBuffer(src)) await out.writeFile(src);
    else {
      const buffer = Buffer.alloc(64 * 1024);
      for (let position = 0; ;) {
        const { bytesRead } = await src.read(buffer, 0, buffer.length, position);
        if (bytesRead === 0) break;
        position += bytesRead;
        if (position > maxBytes) return false; // it grew while read
        await out.writeFile(buffer.subarray(0, bytesRead));
      }
    }
    await fs.fchown(out, 0, 0);
    await fs.fchmod(out, safeMode(st.mode));
    await out.utimes(st.atime, st.mtime);
    await out.sync();
    await out.close();
    await fs.rename(tmp, dest);
    done = true;
    return true;
  } finally {
    if (!done) {
      await out.close().catch(() => undefined);
      await fs.unlink(tmp).catch(() => undefined);
    }
  }
}
