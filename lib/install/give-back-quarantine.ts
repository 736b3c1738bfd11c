// The quarantine: a directory of root's alone (0700) where the give-back puts what root's certbot
// must not run or follow, for the operator to review and put back. Each run has a directory of its
// own, named by when it ran, and each entry keeps its whole path under it:
// /etc/letsencrypt/renewal-hooks/pre/x becomes <quarantine>/<run>/etc/letsencrypt/renewal-hooks/pre/x
// (the basename alone would mix /etc/letsencrypt with /var/lib/letsencrypt and /var/log/letsencrypt);
// an entry whose place is taken anyway gets `.1`, `.2`, … after its name.
import { basename, dirname, join, relative } from 'node:path';
import { SystemError } from '../system/types.ts';
import type { GiveBackFs } from './give-back-fs.ts';
import { rootOnlyPath } from './root-only-path.ts';

export interface Quarantine {
  /** this run's directory in the quarantine, links resolved */
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

/** A run's name: when it ran, UTC, to the second (20250101T120000Z). */
export const runName = (at = new Date()) => at.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');

/**
 * The quarantine at `path`, made (0700) when missing, with a directory `run` in it made when the
 * first entry comes. Its parent must be root's alone, and it must be neither inside nor around
 * `dir`, the directory given back (links resolved).
 */
export async function openQuarantine(fs: GiveBackFs, path: string, dir: string, run: string): Promise<Quarantine> {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(run)) throw new SystemError(`${run} is not a name for a quarantine run`);
  const parent = await rootOnlyPath(dirname(path), { directory: true });
  if ('reason' in parent) throw new SystemError(`the quarantine ${path} is refused: ${parent.reason}`);
  const top = join(parent.real, basename(path));
  if (inside(top, dir) || inside(dir, top)) throw new SystemError(`the quarantine ${top} is refused: it overlaps ${dir}`);
  await ensureDir(fs, top);
  const h = await fs.openDir(top);
  try {
    if (((await fs.fstat(h)).mode & 0o7777) !== 0o700) await fs.fchmod(h, 0o700);
  } finally {
    await h.close();
  }
  const root = join(top, run);
  return {
    root,
    async place(entry: string): Promise<string> {
      const parts = [run, ...relative('/', entry).split('/')];
      let cur = top;
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
