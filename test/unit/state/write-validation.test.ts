// A write the loader would refuse was acknowledged (`{id: 'not-a-uuid', port: NaN}`
// in tunnels), and the next start failed with `Cannot load …tunnels.1.journal`. Every write now
// goes through the collection's schema first; a refused one changes nothing, in memory or on disk.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { InvalidRecordError, JsonCollection } from '../../../lib/state/collection.ts';
import type { TunnelRecord } from '../../../lib/state/schemas.ts';
import { openStore } from '../../../lib/state/store.ts';
import { STORE_SAMPLES } from '../../helpers/store-samples.ts';

const s = suite<{ dir: string }>('store: every write is parsed before it is acknowledged', { dir: '' });

s.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-write-validation-'));
});
s.after.each(async ({ dir }) => {
  await rm(dir, { recursive: true, force: true });
});

const bad = { ...STORE_SAMPLES.tunnels(2), id: 'not-a-uuid', port: Number.NaN } as TunnelRecord;

async function refusal(write: Promise<unknown>): Promise<Error> {
  const outcome = await write.then(
    () => null,
    (error: Error) => error,
  );
  assert.ok(outcome, 'the invalid write was acknowledged');
  return outcome;
}

s('edit: a put the loader would refuse is refused; nothing changes; the store reloads', async ({ dir }) => {
  const data = join(dir, 'data');
  const store = await openStore(data);
  await store.tunnels.edit((d) => d.put(STORE_SAMPLES.tunnels(1)));
  const version = store.tunnels.version;
  const error = await refusal(store.tunnels.edit((d) => (d.put(STORE_SAMPLES.tunnels(3)), d.put(bad))));
  assert.instance(error, InvalidRecordError);
  assert.match(error.message, /tunnels\.json: .*id/);
  assert.match(error.message, /port/);
  assert.is(store.tunnels.version, version, 'a listener heard of the refused change');
  assert.equal(store.tunnels.value, [STORE_SAMPLES.tunnels(1)], 'the valid put of the same edit stays undone too');
  await store.close();
  const again = await openStore(data);
  assert.equal(again.tunnels.value, [STORE_SAMPLES.tunnels(1)]);
  await again.close();
});

s('update: a whole-collection write holding one invalid record is refused; the store reloads', async ({ dir }) => {
  const data = join(dir, 'data');
  const store = await openStore(data);
  await store.sites.edit((d) => d.put(STORE_SAMPLES.sites(1)));
  await refusal(store.sites.update((list) => void list.push({ ...STORE_SAMPLES.sites(2), totalSize: 'big' as unknown as number })));
  await refusal(store.tunnels.update((list) => void list.push(bad)));
  assert.equal(store.sites.value, [STORE_SAMPLES.sites(1)]);
  assert.equal(store.tunnels.value, []);
  await store.flush();
  assert.equal((await readdir(data)).sort(), ['sites.1.journal'], 'the refused writes reached the disk');
  const again = await openStore(data);
  assert.equal(again.sites.value, [STORE_SAMPLES.sites(1)]);
  assert.equal(again.tunnels.value, []);
  await again.close();
});

s('what is stored is what the loader makes of it (defaults filled, unknown fields dropped)', async ({ dir }) => {
  const store = await openStore(join(dir, 'data'));
  const { expiresAt: _e, revokedAt: _r, enrollmentMethod: _m, ...older } = STORE_SAMPLES.agents(1);
  await store.agents.edit((d) => d.put({ ...older, extra: 'kept nowhere' } as unknown as ReturnType<typeof STORE_SAMPLES.agents>));
  assert.equal(store.agents.value, [STORE_SAMPLES.agents(1)]);
  await store.close();
});

s('a single-document collection refuses a value its schema refuses, memory and file unchanged', async ({ dir }) => {
  const file = join(dir, 'state.json');
  const state = await JsonCollection.open({ file, schema: z.object({ count: z.number().int() }), initial: () => ({ count: 0 }) });
  await state.update((d) => void (d.count = 1));
  const error = await refusal(state.update((d) => void (d.count = Number.NaN)));
  assert.instance(error, InvalidRecordError);
  assert.equal(state.value, { count: 1 });
  await state.flush();
  assert.equal(JSON.parse(await readFile(file, 'utf8')), { count: 1 });
});

s.run();
