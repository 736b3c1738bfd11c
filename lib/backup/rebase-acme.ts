// A backup from a box whose certbot directories were elsewhere (an earlier release issued in
// Debian's /etc/letsencrypt; another box's layout): the letsencrypt section's renewal
// configurations name the backed-up box's paths, and certbot renews where they say (archive_dir,
// the webroot it writes challenges to). Before the section is placed, each is rewritten to this
// box's directories, in the restore's scratch copy (root's own, never the panel's directory).
import { constants } from 'node:fs';
import { lchown, open, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { rewriteRenewalPaths, type PathMove } from '../system/certs/renewal-conf.ts';
import type { SystemConfig } from '../system/config.ts';
import { writeFileAtomic } from '../system/common/atomic-write.ts';

type Acme = Pick<SystemConfig['acme'], 'configDir' | 'workDir' | 'logsDir' | 'webroot'>;

const MAX_CONF = 64 * 1024;

/** A regular file's text and owner (no link, no FIFO), or null for anything else. */
async function regularText(path: string): Promise<{ text: string; uid: number; gid: number } | null> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(() => null);
  if (!handle) return null;
  try {
    const st = await handle.stat();
    return st.isFile() && st.size <= MAX_CONF ? { text: (await handle.readFile()).toString('utf8'), uid: st.uid, gid: st.gid } : null;
  } finally {
    await handle.close();
  }
}

/** The renewal configurations it rewrote (names in renewal/). */
export async function rebaseRenewalConfs(sectionDir: string, from: Acme, to: Acme): Promise<string[]> {
  const moves: PathMove[] = (['configDir', 'workDir', 'logsDir', 'webroot'] as const).map((k) => [from[k], to[k]] as const);
  if (moves.every(([a, b]) => a === b)) return [];
  const dir = join(sectionDir, 'renewal');
  const rewritten: string[] = [];
  for (const name of (await readdir(dir).catch(() => [] as string[])).sort()) {
    if (!name.endsWith('.conf')) continue;
    const file = await regularText(join(dir, name));
    if (file === null) continue;
    const moved = rewriteRenewalPaths(file.text, moves);
    if (moved === file.text) continue;
    await writeFileAtomic(join(dir, name), moved, 0o644);
    // owned as unpacked (the panel's user when root restores), like the rest of the section
    await lchown(join(dir, name), file.uid, file.gid);
    rewritten.push(name);
  }
  return rewritten;
}
