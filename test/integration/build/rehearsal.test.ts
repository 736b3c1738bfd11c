// The rehearsal start whose code cache the startup snapshot's builder compiles the bundle with
// (lib/rehearsal.ts, lib/startup-snapshot.mjs, lib/snapshot-entry.ts): the real launcher, node and
// builder. A cache the builder cannot use costs the gain, never the blob.
import { execFile } from 'node:child_process';
import { chmod, chown, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CODE_CACHE_TAKEN, REHEARSE_COMMAND, rehearsalCacheFile } from '../../../lib/rehearsal-names.mjs';
import { makeSnapshot as makeSnapshotOf, snapshotFiles } from '../../../lib/startup-snapshot.mjs';
// @ts-expect-error plain JS build script
import { bundle, bundleFileOf } from '../../../build/build.mjs';
// @ts-expect-error plain JS build script
import { SNAPSHOT_NODE_FLAGS } from '../../../build/snapshot.mjs';

const run = promisify(execFile);
const s = suite<{ dir: string; outfile: string }>('the rehearsal start and the snapshot\'s code cache', { dir: '', outfile: '' });

s.before(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-rehearsal-test-'));
  ctx.outfile = join(ctx.dir, 'dist', 'server.mjs');
  await bundle({ outfile: ctx.outfile, quiet: true });
});
s.after(async (ctx) => {
  await rm(ctx.dir, { recursive: true, force: true });
});

const bundleHash = async (outfile: string) => createHash('sha256').update(await readFile(bundleFileOf(outfile))).digest('hex');

/** `rehearse <dir>` through the launcher; the caller's environment names a configuration and a port the rehearsal must not take. */
const rehearse = (outfile: string, dir: string) =>
  run(process.execPath, [...SNAPSHOT_NODE_FLAGS, outfile, REHEARSE_COMMAND, dir], { env: { ...process.env, RELAY_PANEL_CONFIG: '/nonexistent/config.json', PORT: '1' } }).then(
    ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, output: error.stdout + error.stderr }),
  );

s('a rehearsal writes the launcher\'s code cache of this bundle into its directory, whatever configuration or port its caller\'s environment names', async ({ dir, outfile }) => {
  const into = join(dir, 'rehearsal');
  await mkdir(into, { mode: 0o700 });
  const { code, output } = await rehearse(outfile, into);
  assert.is(code, 0, output);
  const cache = await readFile(rehearsalCacheFile(into));
  assert.is(cache.toString('latin1', 0, 65), `${await bundleHash(outfile)}\n`);
  assert.ok(cache.length > 100_000, `the bytecode of the start's functions, not an empty cache (${cache.length} bytes)`);
});

s('a rehearsal refuses a directory others may enter or another user owns, or a relative one, and writes nothing', async ({ dir, outfile }) => {
  const open = join(dir, 'open');
  await mkdir(open);
  await chmod(open, 0o755);
  const refused = await rehearse(outfile, open);
  assert.is(refused.code, 1);
  assert.match(refused.output, `${open} must be a directory of this user's only it may enter (mode 0700)`);
  assert.equal(await readdir(open), []);
  if (process.geteuid?.() === 0) {
    // root is never pointed at a directory another user made and could still reach
    const theirs = join(dir, 'theirs');
    await mkdir(theirs, { mode: 0o700 });
    await chown(theirs, 65534, 65534);
    const notMine = await rehearse(outfile, theirs);
    assert.is(notMine.code, 1);
    assert.match(notMine.output, `${theirs} must be a directory of this user's`);
    assert.equal(await readdir(theirs), []);
  }
  // a link to a directory only this user may enter is still not that directory
  const own = join(dir, 'own');
  await mkdir(own, { mode: 0o700 });
  await symlink(own, join(dir, 'link'));
  const linked = await rehearse(outfile, join(dir, 'link'));
  assert.is(linked.code, 1);
  assert.match(linked.output, `${join(dir, 'link')} must be a directory of this user's`);
  assert.equal(await readdir(own), []);
  const relative = await rehearse(outfile, 'open');
  assert.is(relative.code, 1);
  assert.match(relative.output, 'usage: rehearse <absolute path');
});

s('makeSnapshot rehearses beside the launcher, not in TMPDIR, and the builder takes the cache; the rehearsal\'s directory is gone after', async ({ dir, outfile }) => {
  const temp = join(dir, 'tmp');
  await mkdir(temp);
  const before = process.env.TMPDIR;
  const rehearsedIn: string[] = [];
  const recording = (file: string, args: string[]) => {
    const at = args.indexOf(REHEARSE_COMMAND);
    if (at >= 0) rehearsedIn.push(args[at + 1]!);
    return run(file, args, { cwd: join(outfile, '..'), maxBuffer: 16 << 20 });
  };
  // a caller's TMPDIR may be a directory another user can write: root's rehearsal is never made there
  process.env.TMPDIR = temp;
  try {
    const made = await makeSnapshotOf({ launcher: outfile, node: process.execPath, flags: SNAPSHOT_NODE_FLAGS, run: recording });
    assert.is(made.codeCache, 'taken');
    assert.ok((await stat(made.blob)).size > 1_000_000);
  } finally {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
  }
  assert.is(rehearsedIn.length, 1);
  assert.is(dirname(rehearsedIn[0]!), join(outfile, '..'), 'beside the launcher');
  assert.equal((await readdir(join(outfile, '..'))).filter((name) => name.startsWith('.relay-rehearsal-')), []);
});

s('the builder takes this bundle\'s cache, not one made for another bundle, one V8 refuses or one others may write, and makes the blob either way', async ({ dir, outfile }) => {
  const { entry } = snapshotFiles(outfile);
  const hash = await bundleHash(outfile);
  const into = join(dir, 'rehearsal-for-the-builder');
  await mkdir(into, { mode: 0o700 });
  assert.is((await rehearse(outfile, into)).code, 0);
  const real = (await readFile(rehearsalCacheFile(into))).subarray(65);
  const cases = [
    // V8 itself would take these bytes (it compares the source's length only): the header must refuse them
    ['another bundle\'s', Buffer.concat([Buffer.from(`${'0'.repeat(64)}\n`), real])],
    ['damaged', Buffer.concat([Buffer.from(`${hash}\n`), Buffer.alloc(4096, 7)])],
    ['this bundle\'s', Buffer.concat([Buffer.from(`${hash}\n`), real])],
    // the builder runs as root at install: a cache anyone could have written is never taken
    ['this bundle\'s, writable by all', Buffer.concat([Buffer.from(`${hash}\n`), real])],
  ] as const;
  for (const [name, bytes] of cases) {
    const cache = join(dir, `${name.replace(/\W/g, '')}.cache`);
    await writeFile(cache, bytes);
    if (name.endsWith('writable by all')) await chmod(cache, 0o666);
    const blob = join(dir, `${name.replace(/\W/g, '')}.blob`);
    const { stdout } = await run(process.execPath, [...SNAPSHOT_NODE_FLAGS, '--snapshot-blob', blob, '--build-snapshot', entry, bundleFileOf(outfile), outfile, cache], { cwd: join(outfile, '..') });
    assert.is(stdout.includes(CODE_CACHE_TAKEN), name === 'this bundle\'s', name);
    assert.ok((await stat(blob)).size > 1_000_000, `${name}: the blob is made`);
  }
});

s.run();
