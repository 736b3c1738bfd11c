// The prune step of an upgrade that worked: releases/ keeps the release `current` names, the one the
// upgrade replaced (the next failed upgrade's way back) and the newest others, --keep-releases in
// all; older releases and the `.partial` leftovers of interrupted copies go. Newest means placed
// last (the directory's time, which placeRelease stamps), never the version's spelling. Only direct
// children that are releases as placeRelease makes them (a directory whose VERSION names it, with a
// server.mjs) or `.partial` directories are touched. A failure to remove is a warning: the upgrade
// is done.
import { lstat, readdir, readlink, rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { directorySize, pathExists } from '../../system/common/fs.ts';
import type { Installation } from '../installation.ts';
import { KEEP_RELEASES } from '../options.ts';
import { releaseVersion } from './release.ts';
import type { Outcome } from './step.ts';

export type Remove = (path: string) => Promise<void>;

/** `replaced`: what `current` pointed at before the upgrade. */
export async function pruneReleases(inst: Installation, replaced: string, remove: Remove = (p) => rm(p, { recursive: true, force: true })): Promise<Outcome> {
  const { appDir, releasesDir, current } = inst.layout;
  const keep = inst.options.keepReleases ?? KEEP_RELEASES;
  // a link's target, by name when it is a child of releases/
  const named = (target: string | null) => (target && dirname(resolve(appDir, target)) === releasesDir ? basename(target) : null);
  try {
    const now = await readlink(current);
    const { releases, partials } = await releasesIn(releasesDir);
    const kept = new Set([named(now), named(replaced)].filter((n): n is string => n !== null && releases.includes(n)));
    for (const name of releases) if (kept.size < keep) kept.add(name);
    const removed: string[] = [];
    const failed: string[] = [];
    let freed = 0;
    for (const name of [...releases.filter((n) => !kept.has(n)), ...partials]) {
      const path = join(releasesDir, name);
      const bytes = await directorySize(path);
      try {
        await remove(path);
        removed.push(name);
        freed += bytes;
      } catch (e) {
        failed.push(`${name} (${(e as Error).message})`);
      }
    }
    const done = `${removed.length ? `removed ${removed.join(', ')} from ${releasesDir} (${(freed / 1024 ** 2).toFixed(1)} MiB freed); ` : ''}kept ${[...kept].join(', ')} (at most ${keep})`;
    if (failed.length) return { status: 'warning', message: `could not remove ${failed.join(', ')}; ${done}`, fix: `remove them by hand from ${releasesDir}` };
    return { status: removed.length ? 'changed' : 'done', message: removed.length ? done : `nothing to remove: ${done}` };
  } catch (e) {
    return { status: 'warning', message: `old releases not removed: ${(e as Error).message}`, fix: `remove them by hand from ${releasesDir}` };
  }
}

/** The releases in dir, placed last first, and the `.partial` directories. */
async function releasesIn(dir: string): Promise<{ releases: string[]; partials: string[] }> {
  const found: Array<{ name: string; placed: number }> = [];
  const partials: string[] = [];
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    // gone since the listing (another run's .partial) or unreadable: not ours to judge
    const st = await lstat(path).catch(() => null);
    // files and links (even to a release) are not placeRelease's
    if (!st?.isDirectory()) continue;
    if ((await releaseVersion(path).catch(() => null)) === name && (await pathExists(join(path, 'server.mjs')))) found.push({ name, placed: st.mtimeMs });
    else if (name.endsWith('.partial')) partials.push(name);
  }
  return { releases: found.sort((a, b) => b.placed - a.placed).map((r) => r.name), partials };
}
