// A snapshot that could not be written was swallowed by a bare `catch {}`, so on a
// full disk SIGTERM exited 0 with nothing logged. A failed snapshot is now logged, retried (the
// journals stay the truth until one succeeds), and a failed final snapshot fails the shutdown.
// A directory in the snapshot's place makes the write fail here as a full disk would (the rename
// over it answers EISDIR), and removing it removes the cause.
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { createTestApp } from '../../../lib/testing.ts';
import { RecordCollection, SnapshotWriteError } from '../../../lib/state/record-collection.ts';
import { openStore } from '../../../lib/state/store.ts';
import { STORE_SAMPLES } from '../../helpers/store-samples.ts';

const s = suite<{ dir: string }>('store: a snapshot that cannot be written', { dir: '' });

s.before.each(async (ctx) => {
  ctx.dir = await mkdtemp(join(tmpdir(), 'relay-snapshot-failure-'));
});
s.after.each(async ({ dir }) => {
  await rm(dir, { recursive: true, force: true });
});

const Item = z.object({ id: z.string(), n: z.number() });
type Item = z.infer<typeof Item>;
const range = (count: number) => Array.from({ length: count }, (_, i) => i);
const numbers = (records: readonly Item[]) => records.map((i) => i.n).sort((a, b) => a - b);

function capture() {
  const lines: string[] = [];
  return { lines, log: { error: (m: string) => lines.push(`error ${m}`), info: (m: string) => lines.push(`info ${m}`) } };
}

async function until(what: string, check: () => Promise<boolean>, ms = 3000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

s('a failed background snapshot is logged, nothing is lost, and a retry writes it once the cause is gone', async ({ dir }) => {
  const file = join(dir, 'items.json');
  const { lines, log } = capture();
  const items = await RecordCollection.open<Item>({ file, record: Item, key: (i) => i.id, compactAfterBytes: 200, snapshotRetryMs: 20, log });
  await mkdir(file);
  for (const i of range(30)) await items.edit((d) => d.put({ id: `i${i}`, n: i }));
  await items.flush();
  assert.ok(
    lines.some((l) => /^error Snapshot .*items\.json could not be written \(.*\); its journals keep every change, next try in/.test(l)),
    `no log line: ${JSON.stringify(lines)}`,
  );
  const journals = (await readdir(dir)).filter((n) => n.endsWith('.journal'));
  assert.ok(journals.length > 0);
  // the journals alone hold every acknowledged write: read from a copy, as the retry (a real
  // timer) may fold and remove them as soon as the cause is gone
  const copy = join(dir, 'journals-only');
  await mkdir(copy);
  for (const name of journals) await copyFile(join(dir, name), join(copy, name));
  const fromJournals = await RecordCollection.open<Item>({ file: join(copy, 'items.json'), record: Item, key: (i) => i.id });
  assert.equal(numbers(fromJournals.value), range(30));
  await rm(file, { recursive: true });
  await until('the retried snapshot', async () => lines.some((l) => l.startsWith('info Snapshot')));
  await items.flush();
  assert.equal(numbers(JSON.parse(await readFile(file, 'utf8')) as Item[]), range(30), 'the snapshot holds every record');
  assert.equal((await readdir(dir)).filter((n) => n.endsWith('.journal')), [], 'the journals it folded are gone');
  assert.match(lines.at(-1)!, /^info Snapshot .*items\.json written after \d+ failed tr/);
});

s('a clean shutdown whose snapshot fails rejects (a non-zero exit), logs it, and the next start replays the journals', async ({ dir }) => {
  const data = join(dir, 'data');
  const { lines, log } = capture();
  const store = await openStore(data, { log });
  await store.tunnels.edit((d) => d.put(STORE_SAMPLES.tunnels(1)));
  await store.webhooks.edit((d) => d.put(STORE_SAMPLES.webhooks(1)));
  await mkdir(join(data, 'tunnels.json'));
  const error = await store.close().then(
    () => null,
    (e: Error) => e,
  );
  assert.instance(error, SnapshotWriteError);
  assert.match(error!.message, /tunnels\.json could not be written .*its journals keep every change/);
  assert.ok(lines.some((l) => l.startsWith('error Snapshot') && l.includes('tunnels.json')));
  assert.ok((await readdir(data)).includes('webhooks.json'), 'the other collections were still folded');
  await rm(join(data, 'tunnels.json'), { recursive: true });
  const again = await openStore(data, { log });
  assert.equal(again.tunnels.value, [STORE_SAMPLES.tunnels(1)]);
  assert.equal(again.webhooks.value, [STORE_SAMPLES.webhooks(1)]);
  await again.close();
});

s('the runtime still flushes the rest and then fails its close (what the SIGTERM handler exits 1 on)', async ({ dir }) => {
  const kit = await createTestApp({ dir });
  const { store } = kit.services;
  await store.sites.edit((d) => d.put(STORE_SAMPLES.sites(1)));
  await mkdir(join(store.dataDir, 'sites.json'));
  const error = await kit.close().then(
    () => null,
    (e: Error) => e,
  );
  assert.instance(error, SnapshotWriteError);
  await rm(join(store.dataDir, 'sites.json'), { recursive: true });
  const again = await openStore(store.dataDir);
  assert.equal(again.sites.value, [STORE_SAMPLES.sites(1)]);
  await again.close();
});

s.run();
