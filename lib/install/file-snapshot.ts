// What an upgrade puts back when any of its steps fails: each file it may write, saved before it
// starts, as it was: its bytes, mode and owner, the target of a link, or its absence.
import { chown, lstat, mkdir, readFile, readlink, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { writeFileAtomic } from '../system/common/atomic-write.ts';
import { pointLink } from './files.ts';

type SavedState =
  | { kind: 'absent' }
  | { kind: 'link'; target: string }
  | { kind: 'file'; data: Buffer; mode: number; uid: number; gid: number };

export interface SavedFile {
  path: string;
  state: SavedState;
}

async function save(path: string): Promise<SavedFile> {
  const st = await lstat(path).catch(() => null);
  if (!st) return { path, state: { kind: 'absent' } };
  if (st.isSymbolicLink()) return { path, state: { kind: 'link', target: await readlink(path) } };
  return { path, state: { kind: 'file', data: await readFile(path), mode: st.mode & 0o7777, uid: st.uid, gid: st.gid } };
}

export function saveFiles(paths: readonly string[]): Promise<SavedFile[]> {
  return Promise.all([...new Set(paths)].map(save));
}

/** Puts every saved file back; the ones that were absent are removed. */
export async function restoreFiles(saved: readonly SavedFile[]): Promise<void> {
  for (const { path, state } of saved) {
    if (state.kind === 'absent') {
      await rm(path, { force: true });
      continue;
    }
    await mkdir(dirname(path), { recursive: true });
    if (state.kind === 'link') {
      await pointLink(path, state.target);
      continue;
    }
    await writeFileAtomic(path, state.data, state.mode);
    await chown(path, state.uid, state.gid);
  }
}
