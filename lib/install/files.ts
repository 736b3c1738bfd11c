// File steps that say whether they changed anything, so a second install can report "no change".
import { chmod, chown, lstat, mkdir, readdir, readFile, readlink, rename, rm, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../system/atomic-write.ts';

export interface Owner {
  uid: number;
  gid: number;
}

/** Creates the directory if needed and sets owner and mode; true when something changed. */
export async function ensureDir(path: string, mode: number, owner: Owner): Promise<boolean> {
  const before = await lstat(path).catch(() => null);
  if (!before) await mkdir(path, { recursive: true });
  let changed = !before;
  if (!before || before.uid !== owner.uid || before.gid !== owner.gid) {
    await chown(path, owner.uid, owner.gid);
    changed = true;
  }
  if (!before || (before.mode & 0o7777) !== mode) {
    await chmod(path, mode);
    changed = true;
  }
  return changed;
}

/** Gives a tree to the panel's user (what root made in the panel's directories). */
export async function chownTree(path: string, owner: Owner): Promise<void> {
  const st = await lstat(path).catch(() => null);
  if (!st) return;
  if (st.uid !== owner.uid || st.gid !== owner.gid) await chown(path, owner.uid, owner.gid);
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
