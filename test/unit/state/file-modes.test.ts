// The tunnels and sites journals were 0644, and Portlama's own checks expect 0600
// for everything in the data directory. Every file the store writes is 0600: journals, snapshots,
// single-document state, and the files an earlier release left wider, from the next start on.
import { chmod, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { JsonCollection } from '../../../lib/state/collection.ts';
import { CHECKED_SNAPSHOTS_FILE } from '../../../lib/state/checked-snapshots.ts';
import { openStore } from '../../../lib/state/store.ts';
import { COLLECTION_NAMES, putSample } from '../../helpers/store-samples.ts';

const s = suite<{ dir: string }>('store: every file in the data directory is 0600', { dir: '' });

s.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-file-modes-'));
});
s.after.each(async ({ dir }) => {
  await rm(dir, { recursive: true, force: true });
});

/** Every file in `dir` whose mode is not 0600, with its mode. */
async function wider(dir: string): Promise<string[]> {
  const names = await readdir(dir);
  const modes = await Promise.all(names.map(async (name) => [name, (await stat(join(dir, name))).mode & 0o777] as const));
  return modes.filter(([, mode]) => mode !== 0o600).map(([name, mode]) => `${name} ${mode.toString(8)}`);
}

s('after writes to every collection: every journal, then every snapshot, is 0600', async ({ dir }) => {
  const data = join(dir, 'data');
  // a permissive umask must not widen them either
  const umask = process.umask(0o000);
  try {
    const store = await openStore(data);
    for (const [n, name] of COLLECTION_NAMES.entries()) await putSample(store, name, n);
    await store.flush();
    const journals = await readdir(data);
    assert.is(journals.filter((f) => f.endsWith('.journal')).length, COLLECTION_NAMES.length, 'one journal per collection');
    assert.equal(await wider(data), []);
    await store.close();
    assert.is((await readdir(data)).filter((f) => f.endsWith('.json') && f !== CHECKED_SNAPSHOTS_FILE).length, COLLECTION_NAMES.length, 'one snapshot per collection');
    assert.equal(await wider(data), []);
  } finally {
    process.umask(umask);
  }
});

s('files an earlier release wrote 0644 are 0600 from the next start on', async ({ dir }) => {
  const data = join(dir, 'data');
  const store = await openStore(data);
  await putSample(store, 'tunnels', 1);
  await putSample(store, 'sites', 1);
  await store.close();
  await putSample(store, 'sites', 2);
  await store.flush();
  for (const name of await readdir(data)) await chmod(join(data, name), 0o644);
  const again = await openStore(data);
  assert.equal(await wider(data), []);
  assert.is(again.sites.size, 2);
  await again.close();
});

s('a single-document collection (admin certificate state, enrollment tokens) is 0600 unless told otherwise', async ({ dir }) => {
  const file = join(dir, 'state.json');
  const state = await JsonCollection.open({ file, schema: z.object({ n: z.number() }), initial: () => ({ n: 0 }) });
  await state.update((d) => void (d.n = 1));
  assert.equal(await wider(dir), []);
});

s.run();
