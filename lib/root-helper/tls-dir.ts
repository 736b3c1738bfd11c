// The directory of copies (config nginx.tlsDir) as the helper writes it: root's (the helper's own
// user), 0700, each entry a 0700 directory of 0600 files replaced atomically, and only when the
// bytes differ (an unchanged certificate is not rewritten at every reload).
import { readdir, rm } from 'node:fs/promises';
import { ensureOwnDir } from '../system/common/own-dir.ts';
import { join } from 'node:path';
import { writeFileAtomic } from '../system/common/atomic-write.ts';
import { readOwnedFile } from '../system/common/owned-file.ts';
import { SystemError } from '../system/types.ts';
import { isTlsEntry } from './tls-entries.ts';

const euid = () => process.geteuid?.() ?? 0;

/** Makes `dir` (0700) or checks it is the helper's own directory and narrows it to 0700. */
export function ensureCopiesDir(dir: string): Promise<void> {
  return ensureOwnDir(dir, 'the TLS copies');
}

/** The copy's bytes, or null when there is none (or something that is not the helper's file). */
export async function readCopy(path: string, maxBytes: number): Promise<Buffer | null> {
  return readOwnedFile(path, { owners: [euid()], maxBytes }).catch(() => null);
}

export async function writeCopy(path: string, bytes: Buffer): Promise<void> {
  await writeFileAtomic(path, bytes, 0o600);
}

/** The entries in the directory of copies; none when it does not exist yet. */
export async function listEntries(tlsDir: string): Promise<string[]> {
  try {
    const names = await readdir(tlsDir, { withFileTypes: true });
    return names.filter((d) => d.isDirectory() && isTlsEntry(d.name)).map((d) => d.name);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}

export async function removeEntry(tlsDir: string, entry: string): Promise<void> {
  if (!isTlsEntry(entry)) throw new SystemError(`not an entry of ${tlsDir}: ${entry}`);
  await rm(join(tlsDir, entry), { recursive: true, force: true });
}
