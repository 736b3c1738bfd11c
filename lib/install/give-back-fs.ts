// The file-system calls the give-back makes, in one place so a test can watch their order (a
// directory is chowned to root before it is read) and so every open says how it opens: never
// through a link, never waiting on a FIFO, a device or a lease.
import { constants, type Stats } from 'node:fs';
import { lchown, lstat, mkdir, open, readdir, readlink, rename, rmdir, unlink, type FileHandle } from 'node:fs/promises';

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_NONBLOCK, O_NOCTTY, O_DIRECTORY } = constants;

export interface GiveBackFs {
  lstat(path: string): Promise<Stats>;
  /** a directory, never through a link */
  openDir(path: string): Promise<FileHandle>;
  /** a file to read, never through a link, never blocking */
  openFile(path: string): Promise<FileHandle>;
  /** a new file, root's, 0600: fails if anything (a link included) is there */
  createFile(path: string): Promise<FileHandle>;
  fstat(h: FileHandle): Promise<Stats>;
  fchown(h: FileHandle, uid: number, gid: number): Promise<void>;
  fchmod(h: FileHandle, mode: number): Promise<void>;
  readdir(path: string): Promise<string[]>;
  readlink(path: string): Promise<string>;
  rename(from: string, to: string): Promise<void>;
  unlink(path: string): Promise<void>;
  rmdir(path: string): Promise<void>;
  lchown(path: string, uid: number, gid: number): Promise<void>;
  mkdir(path: string, mode: number): Promise<void>;
}

export const nodeGiveBackFs: GiveBackFs = {
  lstat: (p) => lstat(p),
  openDir: (p) => open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NONBLOCK),
  openFile: (p) => open(p, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY),
  createFile: (p) => open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NOCTTY, 0o600),
  fstat: (h) => h.stat(),
  fchown: (h, uid, gid) => h.chown(uid, gid),
  fchmod: (h, mode) => h.chmod(mode),
  readdir: (p) => readdir(p),
  readlink: (p) => readlink(p),
  rename: (a, b) => rename(a, b),
  unlink: (p) => unlink(p),
  rmdir: (p) => rmdir(p),
  lchown: (p, uid, gid) => lchown(p, uid, gid),
  mkdir: async (p, mode) => {
    await mkdir(p, { mode });
  },
};
