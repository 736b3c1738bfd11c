// The note of checked snapshots is a cache (a lost note costs one start a full check): it is
// replaced atomically, 0600, without the fsyncs a record's write pays.
import { mkdtemp, open, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { CHECKED_SNAPSHOTS_FILE, CheckedSnapshots } from '../../../lib/state/checked-snapshots.ts';

const s = suite<{ dir: string }>('store: the note of checked snapshots is written as a cache', { dir: '' });

s.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-checked-write-'));
});
s.after.each(async (ctx) => {
  await rm(ctx.dir, { recursive: true, force: true });
});

/** Counts the fsyncs of every file handle (files and directories) while `work` runs. */
async function fsyncsDuring(dir: string, work: () => Promise<void>): Promise<number> {
  const handle = await open(dir, 'r');
  const proto = Object.getPrototypeOf(handle) as { sync: () => Promise<void> };
  await handle.close();
  const original = proto.sync;
  let count = 0;
  proto.sync = function (this: unknown) {
    count++;
    return original.call(this);
  };
  try {
    await work();
  } finally {
    proto.sync = original;
  }
  return count;
}

s('a note is on disk after flush, whole, 0600, with no temporary file left and no fsync', async ({ dir }) => {
  const checked = await CheckedSnapshots.open(dir, await readdir(dir));
  const schema = z.object({ id: z.string() });
  const syncs = await fsyncsDuring(dir, async () => {
    checked.note(join(dir, 'items.json'), 'a'.repeat(64), schema);
    checked.note(join(dir, 'others.json'), 'b'.repeat(64), schema);
    await checked.flush();
  });
  assert.is(syncs, 0, 'a cache is not synced');
  assert.equal(await readdir(dir), [CHECKED_SNAPSHOTS_FILE]);
  assert.is((await stat(join(dir, CHECKED_SNAPSHOTS_FILE))).mode & 0o777, 0o600);
  assert.equal(Object.keys(JSON.parse(await readFile(join(dir, CHECKED_SNAPSHOTS_FILE), 'utf8'))).sort(), ['items.json', 'others.json']);
  // and the next start reads it back
  const again = await CheckedSnapshots.open(dir, await readdir(dir));
  assert.ok(again.has(join(dir, 'items.json'), 'a'.repeat(64), schema));
});

s.run();
