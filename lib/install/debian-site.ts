// Debian's nginx package enables a site of its own, `default`, with `listen 80 default_server`.
// Next to the relay's default server on the same port nginx refuses the whole configuration ("a
// duplicate default server"), so install takes its link away (the file stays in sites-available)
// and uninstall puts the link back.
import { lstat, readlink, rm, symlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { entryExists, pathExists } from '../system/common/fs.ts';

const NAME = 'default';

interface VhostDirs {
  sitesAvailable: string;
  sitesEnabled: string;
}

/** Where the package links its site. */
export function debianDefaultSiteLink(dirs: VhostDirs): string {
  return join(dirs.sitesEnabled, NAME);
}

/** Removes sites-enabled/default when it is the link to Debian's site; true when it did. */
export async function disableDebianDefaultSite(dirs: VhostDirs): Promise<boolean> {
  const link = debianDefaultSiteLink(dirs);
  const st = await lstat(link).catch(() => null);
  if (!st?.isSymbolicLink()) return false;
  // a file of the operator's own under that name is theirs to settle
  if (resolve(dirs.sitesEnabled, await readlink(link)) !== join(dirs.sitesAvailable, NAME)) return false;
  await rm(link);
  return true;
}

/** Links Debian's site again when its file is there and nothing has the name; true when it did. */
export async function restoreDebianDefaultSite(dirs: VhostDirs): Promise<boolean> {
  const file = join(dirs.sitesAvailable, NAME);
  const link = debianDefaultSiteLink(dirs);
  if (!(await pathExists(file)) || (await entryExists(link))) return false;
  await symlink(file, link);
  return true;
}
