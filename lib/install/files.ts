// File steps that say whether they changed anything, so a second install can report "no change".
import { constants } from 'node:fs';
import { chmod, chown, lchown, lstat, mkdir, open, readdir, readFile, readlink, rename, rm, rmdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../system/common/atomic-write.ts';
import { InstallError } from './host-checks.ts';
import { NO_FOLLOW_NO_BLOCK } from '../system/common/fs.ts';

export interface Owner {
  uid: number;
  gid: number;
}

/**
 * Creates the directory if needed and sets owner and mode; true when something changed. A link or
 * anything else in its place is refused, never followed: owner and mode are set through a
 * descriptor opened with O_NOFOLLOW, so what was checked is what changes. Callers make only
 * directories whose parent is root's alone (panel-dirs.ts): nobody else can swap the entry.
 */
export async function ensureDir(path: string, mode: number, owner: Owner): Promise<boolean> {
  const before = await lstat(path).catch(() => null);
  if (before && !before.isDirectory()) {
    throw new InstallError(`${path} is ${before.isSymbolicLink() ? 'a symbolic link' : 'not a directory'}`, 'move it aside, then run install again');
  }
  if (!before) await mkdir(path, { recursive: true });
  const dir = await open(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  try {
    const st = await dir.stat();
    let changed = !before;
    if (st.uid !== owner.uid || st.gid !== owner.gid) {
      await dir.chown(owner.uid, owner.gid);
      changed = true;
    }
    if ((st.mode & 0o7777) !== mode) {
      await dir.chmod(mode);
      changed = true;
    }
    return changed;
  } finally {
    await dir.close();
  }
}

/** Gives a tree root made in root's own directories (a release) to an owner; links are never followed. */
export async function chownTree(path: string, owner: Owner): Promise<void> {
  const st = await lstat(path).catch(() => null);
  if (!st) return;
  if (st.uid !== owner.uid || st.gid !== owner.gid) await lchown(path, owner.uid, owner.gid);
  if (st.isDirectory()) for (const name of await readdir(path)) await chownTree(join(path, name), owner);
}

/** Writes the file only when the content differs; owner and mode are set either way. */
export async function writeIfChanged(path: string, content: string, mode: number, owner: Owner = { uid: 0, gid: 0 }): Promise<boolean> {
  const current = await readFile(path, 'utf8').catch(() => null);
  const changed = current !== content;
  if (changed) await writeFileAtomic(path, content, mode);
  await chown(path, owner.uid, owner.gid);
  await chmod(path, mode);
  return changed;
}

/** Points a symlink at target, replacing an older link atomically; true when it changed. */
export async function pointLink(link: string, target: string): Promise<boolean> {
  if ((await readlink(link).catch(() => null)) === target) return false;
  const temp = `${link}.new`;
  await rm(temp, { force: true });
  await symlink(target, temp);
  await rename(temp, link);
  return true;
}

/** The panel's vhost files in a directory (`relay-*.conf`); none when it does not exist. */
export async function relayVhostFiles(dir: string): Promise<string[]> {
  return (await readdir(dir).catch(() => [] as string[])).filter((n) => /^relay-.*\.conf$/.test(n));
}

/**
 * Gives a file of a less privileged user's directory its owner, group and mode, through a
 * descriptor opened without following a link or blocking on a FIFO: only a regular file owned by
 * one of `owners` is changed; a missing one is left alone. A file of root's there is taken only
 * when it has no other name (an operator put it back as root); with a second name it could be a
 * hard link to any file of root's, which the chown would hand over. True when something changed.
 */
export async function settleOwnedFile(path: string, o: { owners: readonly number[]; owner: Owner; mode: number }): Promise<boolean> {
  let file;
  try {
    file = await open(path, NO_FOLLOW_NO_BLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return false;
    if (code === 'ELOOP') throw new InstallError(`${path} is a symbolic link`, 'remove it, then run install again');
    throw e;
  }
  try {
    const st = await file.stat();
    if (!st.isFile()) throw new InstallError(`${path} is not a regular file`, 'remove it, then run install again');
    const rootPlaced = st.uid === 0 && st.nlink === 1;
    if (!o.owners.includes(st.uid) && !rootPlaced) throw new InstallError(`${path} belongs to uid ${st.uid}${st.uid === 0 ? ` and has ${st.nlink} names` : ''}`, 'remove it (it is not one the panel wrote), then run install again');
    let changed = false;
    if (st.uid !== o.owner.uid || st.gid !== o.owner.gid) {
      await file.chown(o.owner.uid, o.owner.gid);
      changed = true;
    }
    if ((st.mode & 0o7777) !== o.mode) {
      await file.chmod(o.mode);
      changed = true;
    }
    return changed;
  } finally {
    await file.close();
  }
}

/**
 * Removes a tree another user owns without following anything it could swap in: each directory is
 * made root's (0700, through an O_NOFOLLOW descriptor) before it is read, so nothing in it can be
 * replaced by a link while root removes it; entries are unlinked, never followed.
 */
export async function removeLockedTree(path: string): Promise<void> {
  let dir;
  try {
    dir = await open(path, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return;
    // a link or a file in its place: removed as an entry, never followed
    if (code === 'ELOOP' || code === 'ENOTDIR') return rm(path, { force: true });
    throw e;
  }
  try {
    await dir.chown(0, 0);
    await dir.chmod(0o700);
  } finally {
    await dir.close();
  }
  for (const entry of await readdir(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) await removeLockedTree(child);
    else await rm(child, { force: true });
  }
  await rmdir(path);
}
