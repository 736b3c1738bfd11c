import { lstat, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { SitePathError, sitePath } from './safe-path.ts';

export interface FileEntry {
  name: string;
  type: 'file' | 'directory';
  size: number;
  modifiedAt: string;
  relativePath: string;
}

const directoriesFirst = (a: FileEntry, b: FileEntry) =>
  a.type === b.type ? (a.name < b.name ? -1 : a.name > b.name ? 1 : 0) : a.type === 'directory' ? -1 : 1;

/** One directory of the site; hidden names and symlinks are not listed (the API never makes them). */
export async function listDirectory(root: string, path: string): Promise<FileEntry[]> {
  const { absolute, segments } = await sitePath(root, path);
  // resolveInside has checked where a symlink leads, so following it stays inside the site
  const info = await stat(absolute).catch(() => undefined);
  if (!info) throw new SitePathError(`Directory '${path}' not found`);
  if (!info.isDirectory()) throw new SitePathError(`'${path}' is not a directory`);
  const entries: FileEntry[] = [];
  for (const dirent of await readdir(absolute, { withFileTypes: true })) {
    if (dirent.name.startsWith('.') || !(dirent.isFile() || dirent.isDirectory())) continue;
    const stats = await lstat(join(absolute, dirent.name));
    entries.push({
      name: dirent.name,
      type: dirent.isDirectory() ? 'directory' : 'file',
      size: dirent.isDirectory() ? 0 : stats.size,
      modifiedAt: stats.mtime.toISOString(),
      relativePath: [...segments, dirent.name].join('/'),
    });
  }
  return entries.sort(directoriesFirst);
}
