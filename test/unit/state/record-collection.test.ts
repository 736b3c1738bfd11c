import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { StoreLoadError } from '../../../lib/state/collection.ts';
import { RecordCollection, type RecordChange, type RecordCollectionOptions } from '../../../lib/state/record-collection.ts';

const Item = z.object({ id: z.string(), n: z.number() });
type Item = z.infer<typeof Item>;
const item = (n: number): Item => ({ id: `i${n}`, n });

const s = suite<{ dir: string; file: string }>('journaled record collection', { dir: '', file: '' });

s.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-records-'));
  ctx.file = join(ctx.dir, 'items.json');
});
// Tests that play a crash leave collections open; their journal handles are closed here, not by
// the garbage collector (DEP0137).
const opened: RecordCollection<Item>[] = [];
s.after.each(async (ctx) => {
  await Promise.all(opened.splice(0).map((items) => items.flush().catch(() => {})));
  await rm(ctx.dir, { recursive: true, force: true });
});

const open = async (file: string, extra: Partial<RecordCollectionOptions<Item>> = {}) => {
  const items = await RecordCollection.open<Item>({ file, record: Item, key: (i) => i.id, ...extra });
  opened.push(items);
  return items;
};
const numbers = (records: readonly Item[]) => records.map((i) => i.n).sort((a, b) => a - b);
const range = (count: number) => Array.from({ length: count }, (_, i) => i);

s('200 concurrent edits all land, in memory, on disk and after a restart', async ({ file }) => {
  const items = await open(file);
  const sizes = await Promise.all(range(200).map((i) => items.edit((d) => (d.put(item(i)), d.size))));
  assert.equal([...sizes].sort((a, b) => a - b), range(200).map((i) => i + 1));
  assert.equal(numbers(items.value), range(200));
  assert.equal(numbers(await items.onDisk()), range(200));
  await items.flush();
  assert.equal(numbers((await open(file)).value), range(200));
});

s('concurrent edits share a frame and an fdatasync (group commit); a write costs its change, not the collection', async ({ dir, file }) => {
  const items = await open(file);
  await Promise.all(range(1000).map((i) => items.edit((d) => d.put(item(i)))));
  await items.flush();
  const journal = join(dir, 'items.1.journal');
  const before = (await stat(journal)).size;
  await Promise.all(range(100).map((i) => items.edit((d) => d.put({ ...d.get(`i${i}`)!, n: -i }))));
  const frames = (await readFile(journal, 'utf8')).split('\n').length - 1;
  assert.ok(frames <= 4, `expected batched frames, saw ${frames}`);
  const grown = (await stat(journal)).size - before;
  assert.ok(grown < 100 * 40, `100 one-record changes appended ${grown} bytes`);
});

s('an edit is answered only after its change is on disk; one that changes nothing waits for what it read', async ({ file }) => {
  const items = await open(file);
  await items.edit((d) => d.put(item(42)));
  assert.equal(await items.onDisk(), [item(42)]);
  const written = items.edit((d) => d.put(item(7)));
  const seen = await items.edit((d) => d.has('i7'));
  assert.is(seen, true);
  assert.equal(numbers(await items.onDisk()), [7, 42]);
  await written;
});

s('a throwing edit changes nothing; async edit functions are refused; records are immutable', async ({ file }) => {
  const items = await open(file);
  await items.edit((d) => d.put(item(1)));
  const version = items.version;
  let thrown = '';
  await items.edit((d) => { d.put(item(2)); d.delete('i1'); throw new Error('nope'); }).catch((e: Error) => (thrown = e.message));
  assert.is(thrown, 'nope');
  assert.equal(items.value, [item(1)]);
  assert.is(items.version, version);
  let refused = '';
  await items.edit((async () => 1) as unknown as () => number).catch((e: Error) => (refused = e.message));
  assert.match(refused, 'synchronous');
  assert.throws(() => ((items.get('i1') as { n: number }).n = 5));
});

s('a failed write restores the last durable records and fails its callers and those built on them', async ({ dir }) => {
  const sub = join(dir, 'sub');
  await mkdir(sub);
  const items = await open(join(sub, 'items.json'));
  await items.edit((d) => d.put(item(1)));
  await items.flush(); // closes the journal: the next write opens it again
  await rm(sub, { recursive: true, force: true });
  const changes: (readonly RecordChange<Item>[] | null)[] = [];
  items.watch((c) => changes.push(c));
  const first = items.edit((d) => d.put(item(2)));
  const second = items.edit((d) => d.put({ ...d.get('i2')!, n: 3 }));
  const outcomes = await Promise.allSettled([first, second]);
  assert.equal(outcomes.map((o) => o.status), ['rejected', 'rejected']);
  assert.equal(items.value, [item(1)]);
  assert.is(changes.at(-1), null, 'indexes are told to rebuild');
});

s('journals and snapshots of secret collections are 0600; a snapshot replaces the journals once they outgrow it', async ({ dir, file }) => {
  const items = await open(file, { mode: 0o600, compactAfterBytes: 2000 });
  for (let round = 0; round < 10; round++) await Promise.all(range(20).map((i) => items.edit((d) => d.put(item(round * 20 + i)))));
  await items.flush();
  const names = await readdir(dir);
  assert.ok(names.includes('items.json'), names.join());
  assert.ok(names.filter((n) => n.endsWith('.journal')).length <= 1, names.join());
  for (const name of names) assert.is((await stat(join(dir, name))).mode & 0o777, 0o600, name);
  const snapshot = JSON.parse(await readFile(file, 'utf8')) as Item[];
  assert.ok(snapshot.length > 0 && snapshot.length <= 200);
  assert.equal(numbers((await open(file)).value), range(200));
});

s('a crash between a snapshot and the removal of the journals it holds: replaying them again changes nothing', async ({ dir, file }) => {
  const items = await open(file);
  await Promise.all(range(10).map((i) => items.edit((d) => d.put(item(i)))));
  await items.edit((d) => void d.delete('i3'));
  await items.edit((d) => d.put({ ...d.get('i4')!, n: 40 }));
  await items.flush();
  const expected = items.value;
  // the snapshot is on disk, the journal it folded in is still there
  await writeFile(file, JSON.stringify(expected));
  assert.ok((await readdir(dir)).includes('items.1.journal'));
  const reopened = await open(file);
  assert.equal(reopened.value, expected);
});

s('a torn last frame (a write cut short) is ignored, and appends go to a new journal', async ({ dir, file }) => {
  const items = await open(file);
  await items.edit((d) => d.put(item(1)));
  await items.flush();
  await writeFile(join(dir, 'items.1.journal'), '[["p",{"id":"i2","n"', { flag: 'a' });
  const reopened = await open(file);
  assert.equal(reopened.value, [item(1)]);
  await reopened.edit((d) => d.put(item(3)));
  await reopened.flush();
  assert.equal((await readdir(dir)).sort(), ['items.1.journal', 'items.2.journal']);
  assert.equal(numbers((await open(file)).value), [1, 3]);
});

s('a corrupt snapshot or journal refuses to load with a clear error and is left untouched', async ({ dir, file }) => {
  await writeFile(file, '[{"id":"a","n":1}, {"id":"b"');
  let error: unknown;
  await open(file).catch((e) => (error = e));
  assert.instance(error, StoreLoadError);
  assert.match((error as Error).message, 'not valid JSON');

  await writeFile(file, '[{"id":"a","n":1},{"id":"b","n":"two"}]');
  await open(file).catch((e) => (error = e));
  assert.match((error as Error).message, '1.n: ');

  await writeFile(file, '[]');
  const journal = join(dir, 'items.1.journal');
  const broken = '[["p",{"id":"a","n":1}]]\nnot json\n[["p",{"id":"b","n":2}]]\n';
  await writeFile(journal, broken);
  await open(file).catch((e) => (error = e));
  assert.match((error as Error).message, journal);
  assert.match((error as Error).message, 'frame 2');
  assert.is(await readFile(journal, 'utf8'), broken);
  assert.equal((await readdir(dir)).sort(), ['items.1.journal', 'items.json']);
});

s('watchers get each change with the record before and after; update() replaces the whole collection', async ({ file }) => {
  const items = await open(file);
  const seen: (readonly RecordChange<Item>[] | null)[] = [];
  items.watch((changes) => seen.push(changes));
  await items.edit((d) => d.put(item(1)));
  await items.edit((d) => d.put({ ...d.get('i1')!, n: 2 }));
  await items.edit((d) => void d.delete('i1'));
  assert.equal(seen, [
    [{ key: 'i1', before: undefined, after: item(1) }],
    [{ key: 'i1', before: item(1), after: { id: 'i1', n: 2 } }],
    [{ key: 'i1', before: { id: 'i1', n: 2 }, after: undefined }],
  ]);
  await items.update((list) => void list.push(item(5), item(6)));
  assert.is(seen.at(-1), null);
  assert.equal(numbers(await items.onDisk()), [5, 6]);
  let duplicate = '';
  await items.update((list) => void list.push(item(5))).catch((e: Error) => (duplicate = e.message));
  assert.match(duplicate, "two records with the key 'i5'");
  assert.equal(numbers(items.value), [5, 6]);
});

s('compact (a clean shutdown) leaves the snapshot alone holding every record', async ({ dir, file }) => {
  const items = await open(file, { mode: 0o600 });
  await Promise.all(range(5).map((i) => items.edit((d) => d.put(item(i)))));
  await items.edit((d) => void d.delete('i0'));
  await items.compact();
  assert.equal(await readdir(dir), ['items.json']);
  assert.equal(numbers(JSON.parse(await readFile(file, 'utf8')) as Item[]), [1, 2, 3, 4]);
  assert.is((await stat(file)).mode & 0o777, 0o600);
  await items.compact(); // nothing new: nothing written
  assert.equal(await readdir(dir), ['items.json']);
});

s.run();
