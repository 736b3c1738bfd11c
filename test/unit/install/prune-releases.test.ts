// The prune step of a working upgrade on a temp releases/ folder: which releases go (placed first,
// whatever their versions say), which always stay (current, the one the upgrade replaced, anything
// that is not a release) and what it reports.
import { mkdir, mkdtemp, readdir, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { openInstallation } from '../../../lib/install/installation.ts';
import { parseCommandOptions } from '../../../lib/install/options.ts';
import { pruneReleases, type Remove } from '../../../lib/install/steps/prune-releases.ts';

const s = suite<{ dir: string }>('prune releases', { dir: '' });
s.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-prune-'));
});
s.after.each(async (ctx) => rm(ctx.dir, { recursive: true, force: true }));

const HOUR = 3600_000;
const releasesOf = (prefix: string) => join(prefix, 'opt/relay-panel/releases');

/** A release as placeRelease leaves it, placed `hoursAgo`; `version` for a VERSION that does not name its folder. */
async function release(prefix: string, name: string, hoursAgo: number, o: { version?: string; server?: boolean } = {}): Promise<void> {
  const dir = join(releasesOf(prefix), name);
  await mkdir(join(dir, 'panel'), { recursive: true });
  await writeFile(join(dir, 'VERSION'), `${o.version ?? name}\n`);
  if (o.server !== false) await writeFile(join(dir, 'server.mjs'), 'x'.repeat(256 * 1024));
  const placed = new Date(Date.now() - hoursAgo * HOUR);
  await utimes(dir, placed, placed);
}

async function box(prefix: string, current: string, keepReleases?: number) {
  await mkdir(releasesOf(prefix), { recursive: true });
  await symlink(`releases/${current}`, join(prefix, 'opt/relay-panel/current'));
  return openInstallation({
    prefix, json: true, user: 'relay-panel', harden: false, packages: false, downloads: false, system: {},
    release: prefix, node: process.execPath, healthTimeoutMs: 0, purge: false, ...(keepReleases ? { keepReleases } : {}),
  });
}

const listing = async (prefix: string) => (await readdir(releasesOf(prefix))).sort();

s('keeps current, the replaced release and the newest other by placement, not by version; removes the rest and .partial leftovers', async ({ dir }) => {
  const inst = await box(dir, '0.9.0');
  await release(dir, '0.9.0', 1); // current (the upgrade's new release)
  await release(dir, '1.10.0', 2); // the newest other
  await release(dir, '1.2.0', 3);
  await release(dir, '2.0.0', 4); // the highest version, placed long ago
  await release(dir, '1.9.0', 5); // replaced by this upgrade: the oldest, kept
  await mkdir(join(releasesOf(dir), '2.1.0.partial', 'panel'), { recursive: true });
  // not releases: a file, a folder without VERSION, a VERSION naming another folder, one without server.mjs, a link, a .partial file
  await writeFile(join(releasesOf(dir), 'notes.txt'), 'mine\n');
  await mkdir(join(releasesOf(dir), 'scratch'));
  await release(dir, '3.0.0', 9, { version: '3.0.1' });
  await release(dir, '4.0.0', 9, { server: false });
  await symlink('1.2.0', join(releasesOf(dir), 'latest'));
  await writeFile(join(releasesOf(dir), 'x.partial'), '');

  const outcome = await pruneReleases(inst, 'releases/1.9.0');
  assert.is(outcome.status, 'changed', outcome.message);
  assert.match(outcome.message, `removed 1.2.0, 2.0.0, 2.1.0.partial from ${releasesOf(dir)} (`);
  assert.match(outcome.message, 'kept 0.9.0, 1.9.0, 1.10.0 (at most 3)');
  const freed = Number(/\(([0-9.]+) MiB freed\)/.exec(outcome.message)?.[1]);
  assert.ok(freed >= 0.5, `two releases of 256 KiB each: ${outcome.message}`);
  assert.equal(await listing(dir), ['0.9.0', '1.10.0', '1.9.0', '3.0.0', '4.0.0', 'latest', 'notes.txt', 'scratch', 'x.partial']);

  const again = await pruneReleases(inst, 'releases/1.9.0');
  assert.is(again.status, 'done');
  assert.is(again.message, 'nothing to remove: kept 0.9.0, 1.9.0, 1.10.0 (at most 3)');
});

s('--keep-releases N keeps N: current and the replaced one first, then the newest', async ({ dir }) => {
  const inst = await box(dir, 'e', 5);
  for (const [name, hoursAgo] of [['a', 7], ['b', 6], ['c', 5], ['d', 4], ['e', 3], ['f', 2], ['g', 1]] as const) await release(dir, name, hoursAgo);
  // current `e` and the replaced `a` are older than f and g
  const outcome = await pruneReleases(inst, 'releases/a');
  assert.is(outcome.status, 'changed', outcome.message);
  assert.match(outcome.message, 'kept e, a, g, f, d (at most 5)');
  assert.equal(await listing(dir), ['a', 'd', 'e', 'f', 'g']);
});

s('the fewest it keeps is current and the replaced release, even with nothing else to compare', async ({ dir }) => {
  const inst = await box(dir, 'new', 2);
  await release(dir, 'old', 1);
  await release(dir, 'new', 2);
  await release(dir, 'newest-but-failed', 0);
  const outcome = await pruneReleases(inst, 'releases/old');
  assert.match(outcome.message, 'removed newest-but-failed');
  assert.equal(await listing(dir), ['new', 'old']);
});

s('a release it cannot remove is a warning naming it; the others still go', async ({ dir }) => {
  const inst = await box(dir, 'd');
  for (const [name, hoursAgo] of [['z', 6], ['a', 5], ['b', 4], ['c', 3], ['d', 1]] as const) await release(dir, name, hoursAgo);
  const remove: Remove = async (path) => {
    if (path.endsWith('/z')) throw new Error('EBUSY: resource busy');
    await rm(path, { recursive: true });
  };
  const outcome = await pruneReleases(inst, 'releases/c', remove);
  assert.is(outcome.status, 'warning');
  assert.match(outcome.message, 'could not remove z (EBUSY: resource busy); removed a from');
  assert.match(String(outcome.fix), `remove them by hand from ${releasesOf(dir)}`);
  assert.equal(await listing(dir), ['b', 'c', 'd', 'z']);
});

s('without a readable current it removes nothing', async ({ dir }) => {
  const inst = await box(dir, 'c');
  for (const [name, hoursAgo] of [['a', 5], ['b', 4], ['c', 3], ['d', 1]] as const) await release(dir, name, hoursAgo);
  await rm(join(dir, 'opt/relay-panel/current'));
  const outcome = await pruneReleases(inst, 'releases/a');
  assert.is(outcome.status, 'warning');
  assert.match(outcome.message, 'old releases not removed:');
  assert.equal(await listing(dir), ['a', 'b', 'c', 'd']);
});

s('--keep-releases defaults to 3 and takes a whole number of 2 or more', () => {
  assert.is(parseCommandOptions([], '/x/server.mjs').keepReleases, 3);
  assert.is(parseCommandOptions(['--keep-releases', '5'], '/x/server.mjs').keepReleases, 5);
  for (const bad of ['1', '0', '2.5', 'all', '']) {
    assert.throws(() => parseCommandOptions(['--keep-releases', bad], '/x/server.mjs'), /--keep-releases takes a whole number of 2 or more/, bad);
  }
});

s.run();
