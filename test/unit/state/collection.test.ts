import { chmod, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { JsonCollection, StoreLoadError } from '../../../lib/state/collection.ts';
import { openStore } from '../../../lib/state/store.ts';

const Items = z.array(z.number());
const s = suite<{ dir: string }>('embedded store', { dir: '' });

s.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-store-'));
});
s.after.each(async (ctx) => {
  await chmod(ctx.dir, 0o700).catch(() => {});
  await rm(ctx.dir, { recursive: true, force: true });
});

const open = (file: string, extra: Partial<Parameters<typeof JsonCollection.open<number[]>>[0]> = {}) =>
  JsonCollection.open<number[]>({ file, schema: Items, initial: () => [], ...extra });

s('200 concurrent updates on one collection all land, in memory and on disk', async ({ dir }) => {
  const file = join(dir, 'items.json');
  const items = await open(file);
  const results = await Promise.all(Array.from({ length: 200 }, (_, i) => items.update((draft) => (draft.push(i), draft.length))));
  assert.is(items.value.length, 200);
  assert.equal([...results].sort((a, b) => a - b), Array.from({ length: 200 }, (_, i) => i + 1));
  const onDisk = JSON.parse(await readFile(file, 'utf8')) as number[];
  assert.equal([...onDisk].sort((a, b) => a - b), Array.from({ length: 200 }, (_, i) => i));
});

s('concurrent updates share writes (group commit)', async ({ dir }) => {
  const file = join(dir, 'items.json');
  const items = await open(file);
  let writes = 0;
  const watcher = setInterval(() => {}, 1000);
  const original = JSON.stringify;
  JSON.stringify = ((...args: Parameters<typeof JSON.stringify>) => {
    writes++;
    return original(...args);
  }) as typeof JSON.stringify;
  try {
    await Promise.all(Array.from({ length: 100 }, (_, i) => items.update((d) => void d.push(i))));
  } finally {
    JSON.stringify = original;
    clearInterval(watcher);
  }
  assert.ok(writes < 10, `expected batched writes, saw ${writes}`);
});

s('an update is answered only after its change is on disk', async ({ dir }) => {
  const file = join(dir, 'items.json');
  const items = await open(file);
  await items.update((d) => void d.push(42));
  assert.equal(JSON.parse(await readFile(file, 'utf8')), [42]);
});

s('a throwing update changes nothing; async update functions are refused', async ({ dir }) => {
  const items = await open(join(dir, 'items.json'));
  await items.update((d) => void d.push(1));
  let thrown = '';
  await items.update((d) => { d.push(2); throw new Error('nope'); }).catch((e: Error) => (thrown = e.message));
  assert.is(thrown, 'nope');
  assert.equal(items.value, [1]);
  let refused = '';
  await items.update((async () => 1) as unknown as (d: number[]) => number).catch((e: Error) => (refused = e.message));
  assert.match(refused, 'synchronous');
});

s('a failed write restores the last durable value and fails the caller', async ({ dir }) => {
  const sub = join(dir, 'ro');
  await rm(sub, { recursive: true, force: true });
  await (await import('node:fs/promises')).mkdir(sub);
  const items = await open(join(sub, 'items.json'));
  await items.update((d) => void d.push(1));
  await chmod(sub, 0o500);
  if (process.getuid?.() === 0) {
    // root ignores directory permissions; make the write fail by removing the directory instead
    await chmod(sub, 0o700);
    await rm(sub, { recursive: true, force: true });
  }
  let failed = false;
  await items.update((d) => void d.push(2)).catch(() => (failed = true));
  assert.ok(failed);
  assert.equal(items.value, [1]);
});

s('secret collections are written with mode 0600; no temp files are left', async ({ dir }) => {
  const file = join(dir, 'secret.json');
  const secret = await open(file, { mode: 0o600 });
  await secret.update((d) => void d.push(7));
  assert.is((await stat(file)).mode & 0o777, 0o600);
  assert.equal(await readdir(dir), ['secret.json']);
});

s('a corrupt file refuses to load with a clear error and is left untouched', async ({ dir }) => {
  const file = join(dir, 'items.json');
  await writeFile(file, '[1, 2, "three"');
  let error: unknown;
  await open(file).catch((e) => (error = e));
  assert.instance(error, StoreLoadError);
  assert.match((error as Error).message, file);
  assert.match((error as Error).message, 'not valid JSON');
  assert.is(await readFile(file, 'utf8'), '[1, 2, "three"');

  await writeFile(file, '[1, 2, "three"]');
  let schemaError: unknown;
  await open(file).catch((e) => (schemaError = e));
  assert.match((schemaError as Error).message, '2: ');
  assert.is(await readFile(file, 'utf8'), '[1, 2, "three"]');
});

s('stale temp files from an interrupted write are removed on load', async ({ dir }) => {
  const file = join(dir, 'items.json');
  await writeFile(file, '[1]');
  await writeFile(join(dir, '.items.json.999.abcdef.tmp'), '[1, 2');
  const items = await open(file);
  assert.equal(items.value, [1]);
  assert.equal(await readdir(dir), ['items.json']);
});

s('memo recomputes only after a change', async ({ dir }) => {
  const items = await open(join(dir, 'items.json'));
  let computed = 0;
  const total = items.memo((list) => (computed++, list.reduce((a, b) => a + b, 0)));
  assert.is(total(), 0);
  assert.is(total(), 0);
  await items.update((d) => void d.push(5));
  assert.is(total(), 5);
  assert.is(total(), 5);
  assert.is(computed, 2);
});

s('openStore creates every collection the panel needs, every file 0600', async ({ dir }) => {
  const store = await openStore(join(dir, 'data'));
  for (const name of ['tunnels', 'sites', 'agents', 'revocations', 'invitations', 'ticketScopes', 'ticketInstances', 'ticketAssignments', 'tickets', 'ticketSessions'] as const) {
    assert.equal(store[name].value, [], name);
  }
  await store.agents.edit((d) => d.put({ label: 'a', serial: '1', capabilities: [], allowedSites: [], createdAt: 'x', expiresAt: null, revokedAt: null, enrollmentMethod: 'p12' as const }));
  await store.tunnels.edit((d) => d.put({ id: '6f1c1f9e-8d1a-4c1e-9a7e-2b1f3c4d5e6f', subdomain: 's', fqdn: 's.x', port: 1, description: null, enabled: true, createdAt: 'x' }));
  const files = await readdir(join(dir, 'data'));
  assert.equal(files.sort(), ['agents.1.journal', 'tunnels.1.journal']);
  assert.is((await stat(join(dir, 'data', 'agents.1.journal'))).mode & 0o777, 0o600);
  assert.is((await stat(join(dir, 'data', 'tunnels.1.journal'))).mode & 0o777, 0o600, 'tunnels too: everything in the data directory is 0600');
  await store.close();
  const again = await openStore(join(dir, 'data'));
  assert.is(again.agents.value[0]?.label, 'a');
  await again.close();
});

s.run();
