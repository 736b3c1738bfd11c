// Backup archives built entry by entry, for tests of what a restore does with what an archive holds
// (hostile entries, an earlier release's layout, a note the archive should not carry).
import { gzipSync } from 'node:zlib';
import { Header } from 'tar';

export interface TarEntry {
  path: string;
  type?: 'File' | 'Directory' | 'SymbolicLink' | 'Link' | 'CharacterDevice' | 'FIFO';
  linkpath?: string;
  body?: string;
}

/** One entry's header block and its body padded to whole blocks (only a file has a body). */
export function tarBlock(entry: TarEntry): Buffer {
  const body = Buffer.from(entry.body ?? '');
  const type = entry.type ?? 'File';
  const header = new Header({ path: entry.path, type, linkpath: entry.linkpath, size: type === 'File' ? body.length : 0, mode: type === 'Directory' ? 0o755 : 0o644, mtime: new Date(0) });
  header.encode();
  const padded = Buffer.alloc(Math.ceil(body.length / 512) * 512);
  body.copy(padded);
  return Buffer.concat([header.block!, type === 'File' ? padded : Buffer.alloc(0)]);
}

/** The entries as a gzipped tar archive, with its two closing zero blocks. */
export const gzippedTar = (entries: readonly TarEntry[]): Buffer => gzipSync(Buffer.concat([...entries.map(tarBlock), Buffer.alloc(1024)]));
