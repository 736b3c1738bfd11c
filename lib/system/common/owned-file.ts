// How root reads a file that a less privileged user could have written (the panel's configuration,
// its certificates, its CRL): never through a link, never blocking on a FIFO or a device, only a
// regular file owned by the user expected to have written it, and no larger than asked. A file
// owned by that user holds nothing that user could not read already, whatever links led to it.
import { open } from 'node:fs/promises';
import { SystemError } from '../types.ts';
import { NO_FOLLOW_NO_BLOCK } from './fs.ts';

export interface OwnedFileRule {
  /** the uids that may own it (the panel's user; root for root's own files) */
  owners: readonly number[];
  maxBytes: number;
}

/** Refused: what a root code path will not read, with the reason in its message. */
export class RefusedPathError extends SystemError {
  constructor(readonly path: string, readonly reason: string) {
    super(`${path} refused: ${reason}`, undefined, undefined, 'refused');
    this.name = 'RefusedPathError';
  }
}


function kindOf(st: { isFIFO(): boolean; isSocket(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isDirectory(): boolean }): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isCharacterDevice() || st.isBlockDevice()) return 'a device';
  if (st.isDirectory()) return 'a directory';
  return 'not a regular file';
}

/** The file's bytes, or a RefusedPathError (ENOENT and other errors are thrown as they come). */
export async function readOwnedFile(path: string, rule: OwnedFileRule): Promise<Buffer> {
  let handle;
  try {
    handle = await open(path, NO_FOLLOW_NO_BLOCK);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') throw new RefusedPathError(path, 'a symbolic link');
    throw e;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new RefusedPathError(path, `${kindOf(st)}, not a regular file`);
    if (!rule.owners.includes(st.uid)) throw new RefusedPathError(path, `owned by uid ${st.uid}, not ${rule.owners.join(' or ')}`);
    if (st.size > rule.maxBytes) throw new RefusedPathError(path, `${st.size} bytes, more than ${rule.maxBytes}`);
    // read to the end: the size may change under us; the limit holds whatever it becomes
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const buffer = Buffer.alloc(Math.min(64 * 1024, rule.maxBytes + 1 - total));
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > rule.maxBytes) throw new RefusedPathError(path, `more than ${rule.maxBytes} bytes`);
      chunks.push(buffer.subarray(0, bytesRead));
    }
    return Buffer.concat(chunks);
  } finally {
    await handle.close();
  }
}

/** The same, as UTF-8 text; null when the file does not exist. */
export async function readOwnedText(path: string, rule: OwnedFileRule): Promise<string | null> {
  try {
    return (await readOwnedFile(path, rule)).toString('utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}
