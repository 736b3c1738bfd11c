// The quarantine: a directory of root's alone (0700) where the give-back puts what root's certbot
// must not run or follow, for the operator to review and put back. Each entry keeps its whole path:
// /etc/letsencrypt/renewal-hooks/pre/x becomes <quarantine>/etc/letsencrypt/renewal-hooks/pre/x (the
// basename alone would mix /etc/letsencrypt with /var/lib/letsencrypt and /var/log/letsencrypt); a
// second entry of the same path (a later run) gets `.1`, `.2`, … after its name.
import { dirname, join, relative } from 'node:path';
import { SystemError } from '../system/types.ts';
import type { GiveBackFs } from './give-back-fs.ts';
import { rootOnlyPath } from './root-only-path.ts';

export interface Quarantine {
  /** the quarantine directory, links resolved */
  root: string;
  /** a free path in the quarantine for `path` (an absolute path in the directory given back), its directories made */
  place(path: string): Promise<string>;
}

const inside = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);

/** root's, a directory, not a link: anything else in a place only root can write is not ours. */
async function ensureDir(fs: GiveBackFs, path: string): Promise<void> {
  const st = await fs.lstat(path).catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? null : Promise.reject(e)));
  if (!st) {
    await fs.mkdir(path, 0o700);
    return ensureDir(fs, path);
  }
  if (st.isSymbolicLink() || !st.isDirectory() || st.uid !== 0) throw new SystemError(`${path} is not a directory of root's: the quarantine cannot use it`);
}

/**
 * The quarantine at `path`, made (0700) when missing. Its parent must be root's alone, and it must
 * be neither inside nor around `dir`, the directory given back (links resolved).
 */
export async function openQuarantine(fs: GiveBackFs, path: string, dir: string): Promise<Quarantine> {
  const parent = await rootOnlyPath(dirname(path), { directory: true });
  if ('reason' in parent) throw new SystemError(`the quarantine ${path} is refused: ${parent.reason}`);
  const root = join(parent.real, path.split('/').pop()!);
  if (inside(root, dir) || inside(dir, root)) throw new SystemError(`the quarantine ${root} is refused: it overlaps ${dir}`);
  await ensureDir(fs, root);
  const h = await fs.openDir(root);
  try {
    if (((await fs.fstat(h)).mode & 0o7777) !== 0o700) await fs.fchmod(h, 0o700);
  } finally {
    await h.close();
  }
  return {
    root,
    async place(entry: string): Promise<string> {
      const rel = relative('/', entry);
      const parts = rel.split('/');
      let cur = root;
      for (const part of parts.slice(0, -1)) {
        cur = join(cur, part);
        await ensureDir(fs, cur);
      }
      const base = join(cur, parts.at(-1)!);
      for (let n = 0; n < 1000; n++) {
        const candidate = n === 0 ? base : `${base}.${n}`;
        const taken = await fs.lstat(candidate).then(() => true, (e: NodeJS.ErrnoException) => (e.code === 'ENOENT' ? false : Promise.reject(e)));
        if (!taken) return candidate;
      }
      throw new SystemError(`${base} and 999 more are taken in the quarantine`);
    },
  };
}
