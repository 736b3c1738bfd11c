// A snapshot this release wrote (or checked, as it would write it) is read at the next start
// without its schema check; any other text, or another schema, is checked in full.
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { CHECKED_SNAPSHOTS_FILE, CheckedSnapshots } from '../../../lib/state/checked-snapshots.ts';
import { StoreLoadError } from '../../../lib/state/collection.ts';
import { RecordCollection } from '../../../lib/state/record-collection.ts';
import { schemaFingerprint } from '../../../lib/state/schema-fingerprint.ts';

/** Records checked by the schema so far: the refinement runs once per record checked. */
let checks = 0;
const Item = z.object({ id: z.string(), n: z.number() }).refine(() => (checks++, true));
type Item = z.infer<typeof Item>;
const item = (n: number): Item => ({ id: `i${n}`, n });

const s = suite<{ dir: string; file: string }>('store: snapshots this release checked', { dir: '', file: '' });

s.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-checked-'));
  ctx.file = join(ctx.dir, 'items.json');
  checks = 0;
});
const opened: Array<() => Promise<void>> = [];
s.after.each(async (ctx) => {
  // the notes are written in the background: each collection is closed before its directory goes
  await Promise.all(opened.splice(0).map((close) => close().catch(() => {})));
  await rm(ctx.dir, { recursive: true, force: true });
});

/** Opens the collection as the store does at start, with the directory's note of checked snapshots. */
async function open(dir: string, record: z.ZodType<Item> = Item) {
  const listing = await readdir(dir);
  const checked = await CheckedSnapshots.open(dir, listing);
  const items = await RecordCollection.open<Item>({ file: join(dir, 'items.json'), record, key: (i) => i.id, listing, checked });
  const close = async () => (await items.compact(), await checked.flush());
  opened.push(close);
  return { items, checked, close };
}

/** A collection of `count` records, written by this release's snapshot (a clean shutdown). */
async function written(dir: string, count: number): Promise<void> {
  const { items, close } = await open(dir);
  await Promise.all(Array.from({ length: count }, (_, i) => items.edit((d) => d.put(item(i)))));
  await close();
}

s('a snapshot this release wrote is read at the next start without checking its records again', async ({ dir }) => {
  await written(dir, 5);
  checks = 0;
  const { items, close } = await open(dir);
  assert.is(checks, 0);
  assert.equal(items.value, [0, 1, 2, 3, 4].map(item));
  assert.ok(Object.isFrozen(items.get('i0')));
  await close();
});

s('a snapshot edited by hand after it was written is checked in full, and refused when a record is bad', async ({ dir, file }) => {
  await written(dir, 3);
  const records = JSON.parse(await readFile(file, 'utf8')) as Array<Record<string, unknown>>;
  records[1]!.n = 'one';
  await writeFile(file, JSON.stringify(records));
  const error = await open(dir).then(() => null, (e: unknown) => e);
  assert.instance(error, StoreLoadError);
  assert.match((error as Error).message, /items\.json/);
});

s('a valid hand edit is checked once, then noted', async ({ dir, file }) => {
  await written(dir, 3);
  const records = JSON.parse(await readFile(file, 'utf8')) as Item[];
  await writeFile(file, JSON.stringify([...records, item(9)]));
  checks = 0;
  const first = await open(dir);
  assert.is(checks, 4);
  assert.is(first.items.size, 4);
  await first.close();
  checks = 0;
  const second = await open(dir);
  assert.is(checks, 0);
  assert.is(second.items.size, 4);
});

s('a text this release would write otherwise (another key order) is checked, then rewritten at shutdown and read without a check after', async ({ dir, file }) => {
  await writeFile(file, JSON.stringify([{ n: 1, id: 'i1' }, { n: 2, id: 'i2' }]));
  const first = await open(dir);
  assert.is(checks, 2);
  await first.close();
  assert.is(await readFile(file, 'utf8'), JSON.stringify([item(1), item(2)]));
  checks = 0;
  const second = await open(dir);
  assert.is(checks, 0);
  assert.equal(second.items.value, [item(1), item(2)]);
});

s('the same text under a schema that checks differently is checked in full (a release that changed the schema)', async ({ dir }) => {
  await written(dir, 2);
  let stricter = 0;
  const Positive = z.object({ id: z.string(), n: z.number().positive() }).refine(() => (stricter++, true));
  const error = await open(dir, Positive).then(() => null, (e: unknown) => e);
  assert.instance(error, StoreLoadError, 'i0 has n 0, which the new schema refuses');
  stricter = 0;
  const Counted = z.object({ id: z.string(), n: z.number() }).refine(() => (stricter++, true));
  const again = await open(dir, Counted);
  assert.is(stricter, 2, 'the same checks, but another function: checked again');
  await again.close();
  assert.is.not(schemaFingerprint(Positive), schemaFingerprint(Item));
  assert.is.not(schemaFingerprint(z.object({ id: z.string(), n: z.number() }).refine((v) => v.n < 10)), schemaFingerprint(z.object({ id: z.string(), n: z.number() }).refine((v) => v.n < 11)), "a refinement's source is part of it");
});

s('a note that is not valid JSON, or lost, only costs a full check', async ({ dir }) => {
  await written(dir, 2);
  await writeFile(join(dir, CHECKED_SNAPSHOTS_FILE), '{ not json');
  checks = 0;
  const broken = await open(dir);
  assert.is(checks, 2);
  await broken.close();
  await rm(join(dir, CHECKED_SNAPSHOTS_FILE));
  checks = 0;
  const lost = await open(dir);
  assert.is(checks, 2);
  assert.is(lost.items.size, 2);
});

s.run();
