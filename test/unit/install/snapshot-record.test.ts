import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { NODE_FLAGS } from '../../../lib/node-flags.ts';
import { codeCacheNote, makeSnapshot, recordText, snapshotFiles, startScript, statArgs, STAT_FORMAT } from '../../../lib/startup-snapshot.mjs';
import { CODE_CACHE_TAKEN, REHEARSE_COMMAND, rehearsalCacheFile } from '../../../lib/rehearsal-names.mjs';

// The record beside a startup snapshot is written by the build (a checkout's dist/) or by install (a
// box's release), and compared by the start script: all three come from lib/startup-snapshot.mjs, or
// a box would never start from its snapshot (and nothing would say so but the start's time).
const s = suite<{ dir: string }>('the startup snapshot\'s record, written and compared alike', { dir: '' });

s.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-snapshot-record-'));
});
s.after.each(async (ctx) => {
  await rm(ctx.dir, { recursive: true, force: true });
});

const STAT_OUTPUT = '2049:11:99:1700000000:1700000001\n2049:12:9200000:1700000002:1700000003\n';

/**
 * node and stat as makeSnapshot runs them: the rehearsal start (`rehearse <dir>`) writes its code
 * cache, or fails, or writes none; the builder writes the blob and says whether it took the cache.
 */
function fakeRun(calls: string[][], rehearsal: 'writes a cache' | 'fails' | 'writes none' = 'writes a cache', builderTakes = true) {
  return async (file: string, args: string[]) => {
    calls.push([file, ...args]);
    if (file === '/usr/bin/stat') return { stdout: STAT_OUTPUT };
    const rehearsed = args.indexOf(REHEARSE_COMMAND);
    if (rehearsed >= 0) {
      if (rehearsal === 'fails') throw Object.assign(new Error('node exited 1'), { stderr: 'relay-panel rehearse: GET /api/health answered 500' });
      if (rehearsal === 'writes a cache') await writeFile(rehearsalCacheFile(args[rehearsed + 1]!), 'cache');
      return { stdout: '' };
    }
    await writeFile(args[args.indexOf('--snapshot-blob') + 1]!, 'blob');
    return { stdout: builderTakes ? `${CODE_CACHE_TAKEN}\n` : '' };
  };
}

s('a rehearsal start of the launcher first, in a directory of its own; then the builder is given the entry, bundle, launcher and its code cache, the blob renamed and stat\'s two lines and the flags recorded', async ({ dir }) => {
  const launcher = join(dir, 'server.mjs');
  const files = snapshotFiles(launcher);
  const calls: string[][] = [];
  const made = await makeSnapshot({ launcher, node: '/usr/bin/node', flags: NODE_FLAGS, run: fakeRun(calls), stat: '/usr/bin/stat' });
  assert.equal(made, { blob: files.blob, record: files.record, codeCache: 'taken' });
  const rehearsalDir = calls[0]!.at(-1)!;
  assert.equal(calls[0], ['/usr/bin/node', ...NODE_FLAGS, launcher, REHEARSE_COMMAND, rehearsalDir]);
  const temp = calls[1]![calls[1]!.indexOf('--snapshot-blob') + 1]!;
  assert.equal(calls[1], ['/usr/bin/node', ...NODE_FLAGS, '--snapshot-blob', temp, '--build-snapshot', files.entry, join(dir, 'server.bundle.cjs'), launcher, rehearsalCacheFile(rehearsalDir)]);
  assert.equal(calls[2], ['/usr/bin/stat', '-L', '-c', STAT_FORMAT, '--', '/usr/bin/node', files.blob]);
  assert.is(await readFile(files.blob, 'utf8'), 'blob');
  assert.is(await readFile(files.record, 'utf8'), `${STAT_OUTPUT}${NODE_FLAGS.join(' ')}\n`);
  assert.is((await stat(files.record)).mode & 0o777, 0o644);
  assert.is(await stat(rehearsalDir).catch(() => null), null, 'the rehearsal\'s directory is removed');
});

s('a rehearsal that fails or writes no cache, or a cache the builder does not take: the blob is made all the same, and codeCache says why', async ({ dir }) => {
  const launcher = join(dir, 'server.mjs');
  const cases = [
    { rehearsal: 'fails', takes: true, why: 'the rehearsal start failed: relay-panel rehearse: GET /api/health answered 500' },
    { rehearsal: 'writes none', takes: true, why: 'the rehearsal start wrote no code cache' },
    { rehearsal: 'writes a cache', takes: false, why: 'the builder refused the rehearsal start\'s code cache' },
  ] as const;
  for (const { rehearsal, takes, why } of cases) {
    const calls: string[][] = [];
    const made = await makeSnapshot({ launcher, node: '/usr/bin/node', flags: NODE_FLAGS, run: fakeRun(calls, rehearsal, takes), stat: '/usr/bin/stat' });
    assert.is(made.codeCache, why);
    assert.is(await readFile(made.blob, 'utf8'), 'blob');
    const builder = calls.find((call) => call.includes('--build-snapshot'))!;
    assert.is(builder.at(-1) === launcher, rehearsal !== 'writes a cache', `${rehearsal}: the builder is given a cache only when there is one`);
    assert.is(await stat(calls[0]!.at(-1)!).catch(() => null), null, `${rehearsal}: the rehearsal's directory is removed`);
  }
});

s('under root\'s umask 077 the blob and its record are still readable by the panel\'s user (0644)', async ({ dir }) => {
  const launcher = join(dir, 'server.mjs');
  const run = fakeRun([]);
  const before = process.umask(0o077);
  try {
    const made = await makeSnapshot({ launcher, node: '/usr/bin/node', flags: NODE_FLAGS, run, stat: '/usr/bin/stat' });
    assert.equal([(await stat(made.blob)).mode & 0o777, (await stat(made.record)).mode & 0o777], [0o644, 0o644]);
  } finally {
    process.umask(before);
  }
});

s('a builder that fails leaves neither its temporary blob nor a record, and the error is the builder\'s', async ({ dir }) => {
  const launcher = join(dir, 'server.mjs');
  await writeFile(snapshotFiles(launcher).record, 'an old record\n');
  const run = async (_file: string, args: string[]) => {
    if (args.includes(REHEARSE_COMMAND)) return { stdout: '' };
    await writeFile(args[args.indexOf('--snapshot-blob') + 1]!, 'half a blob');
    throw new Error('node exited 1: process.env.HOME is read while the startup snapshot is built');
  };
  const failed = await makeSnapshot({ launcher, node: '/usr/bin/node', flags: NODE_FLAGS, run }).then(() => '', (error: Error) => error.message);
  assert.match(failed, 'process.env.HOME is read');
  assert.equal(await readdir(dir), []);
});

s('the start script compares the record with the same stat, reading its three lines, and passes the same flags', () => {
  const script = startScript(NODE_FLAGS);
  assert.equal(statArgs('"$node"', '"$blob"'), ['-L', '-c', STAT_FORMAT, '--', '"$node"', '"$blob"']);
  assert.match(script, `$(stat -L -c '${STAT_FORMAT}' -- "$node" "$blob" 2>/dev/null)`);
  assert.match(script, '{ read -r made_node && read -r made_blob && read -r made_flags; } < "$blob.made"');
  assert.match(script, `\nflags='${NODE_FLAGS.join(' ')}'\n`);
  assert.is(recordText(STAT_OUTPUT, NODE_FLAGS).split('\n').length, 4, 'three lines and the last newline');
});

s('what the build and the install step say of it: the code taken, or why not', async ({ dir }) => {
  const launcher = join(dir, 'server.mjs');
  const taken = await makeSnapshot({ launcher, node: '/usr/bin/node', flags: NODE_FLAGS, run: fakeRun([]), stat: '/usr/bin/stat' });
  assert.is(codeCacheNote(taken.codeCache), ', with the code a rehearsal start compiled');
  const refused = await makeSnapshot({ launcher, node: '/usr/bin/node', flags: NODE_FLAGS, run: fakeRun([], 'writes a cache', false), stat: '/usr/bin/stat' });
  assert.is(codeCacheNote(refused.codeCache), "; without a rehearsal start's code (the builder refused the rehearsal start's code cache), so its starts compile more");
});

s.run();
