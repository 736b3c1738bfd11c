// The files Authelia writes, made by the panel and shared by two users: Authelia's own (its service)
// and the panel's, a member of Authelia's group. The panel runs `authelia storage user totp
// generate` on the SQLite storage, and backs up the whole directory (the notifier's file included).
// The directory (setgid + sticky, group = Authelia's) is writable by Authelia's user, so nothing in
// it is trusted: no link is followed, no FIFO is opened for long.
import { constants } from 'node:fs';
import { lstat, open, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { SystemError } from '../types.ts';
import { RefusedPathError } from '../common/owned-file.ts';

/** Owner (the panel) and group (Authelia's) read and write; nobody else. */
export const PORTAL_STORAGE_MODE = 0o660;

/**
 * SQLite's side files beside the database: Authelia's DSN names no journal mode, so a rollback
 * journal; the WAL pair too, should a later release switch. SQLite opens them following links.
 */
const SIDE_FILES = ['-journal', '-wal', '-shm'];

const OPEN_OR_CREATE = constants.O_RDONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK | constants.O_NOCTTY;

const octal = (mode: number) => `0${(mode & 0o7777).toString(8)}`;

export interface StorageUser {
  uid: number;
  /** the groups the process holds (primary and supplementary) */
  groups: readonly number[];
}

function currentUser(): StorageUser {
  const uid = process.getuid?.() ?? 0;
  const groups = [...new Set([process.getegid?.() ?? 0, ...(process.getgroups?.() ?? [])])];
  return { uid, groups };
}

/**
 * The storage, shared (sharePortalFile), after a look at SQLite's side files: Authelia's user could
 * plant one as a link, and the panel's CLI run would write its journal through it.
 */
export async function shareStorage(path: string, user: StorageUser = currentUser()): Promise<void> {
  for (const suffix of SIDE_FILES) await refuseOddSideFile(path + suffix);
  await sharePortalFile(path, user);
}

/**
 * Makes the file when there is none (empty: SQLite takes an empty file as an empty database, and
 * Authelia's notifier truncates its file at start) and leaves it PORTAL_STORAGE_MODE in the
 * directory's group, so both users can write it. Left to them, the files would be made 0644 less
 * the umask (SQLite: 0640 under either unit, which the other user could not write) or 0600
 * (Authelia's notifier: the panel's backup could not read it). An existing file keeps its mode when
 * they open it, and SQLite makes its journal with the database's. A file of another owner
 * (Authelia made it) cannot be changed here: it must already be open to a group the process holds.
 */
export async function sharePortalFile(path: string, user: StorageUser = currentUser()): Promise<void> {
  let handle;
  try {
    handle = await open(path, OPEN_OR_CREATE, PORTAL_STORAGE_MODE);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') throw new RefusedPathError(path, 'a symbolic link');
    if ((e as NodeJS.ErrnoException).code === 'EACCES') throw notWritable(path, 'it cannot be opened');
    throw e;
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) throw new RefusedPathError(path, 'not a regular file');
    if (st.uid === user.uid) {
      // ours: just made (the umask narrowed it), or left by a release where Authelia ran as the
      // panel's user (the panel's group, 0600). The panel's user is a member of Authelia's group
      const group = (await stat(dirname(path))).gid;
      if (st.gid !== group) {
        await handle.chown(st.uid, group).catch((e: NodeJS.ErrnoException) => {
          throw notWritable(path, `group ${st.gid}, not the directory's ${group}, which this user cannot give it (${e.code})`);
        });
      }
      if ((st.mode & 0o7777) !== PORTAL_STORAGE_MODE) await handle.chmod(PORTAL_STORAGE_MODE);
      return;
    }
    if (user.uid === 0) return; // root (a box without a panel user) writes it whatever its mode
    if ((st.mode & 0o060) !== 0o060 || !user.groups.includes(st.gid)) {
      throw notWritable(path, `owner uid ${st.uid}, group ${st.gid}, mode ${octal(st.mode)}`);
    }
  } finally {
    await handle.close();
  }
}

function notWritable(path: string, why: string): SystemError {
  return new SystemError(
    `${path} is not shared with Authelia's user and the panel's (${why}): run relay-panel install again, which gives it Authelia's group and mode 0660`,
    undefined,
    undefined,
    'EACCES',
  );
}

/** A side file Authelia's user planted as a link would have the panel's SQLite write through it. */
async function refuseOddSideFile(path: string): Promise<void> {
  const st = await lstat(path).catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') return null;
    throw e;
  });
  if (st === null || st.isFile()) return;
  throw new RefusedPathError(path, st.isSymbolicLink() ? 'a symbolic link' : 'not a regular file');
}
