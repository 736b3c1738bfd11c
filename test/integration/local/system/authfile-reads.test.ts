// chisel reads its authfile on every write event (fsnotify), so it sees every state a rewrite leaves
// between two system calls. A reader on another thread reads the file on each event, as chisel does,
// while 200 tunnel changes grow and shrink the grants: every read must be one of the documents
// written, never empty or cut (the truncate and write of before gave empty reads here).
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AuthfileStore, renderAuthfile } from '../../../../lib/system/tunnel-server/authfile.ts';

const s = suite('chisel authfile: every state a watcher can read');

// chisel 1.9 watches the file (fsnotify: inotify IN_MODIFY) and reads it at once on each write event
const READER = `
const { readFileSync, watch } = require('node:fs');
const { parentPort, workerData } = require('node:worker_threads');
const seen = new Map();
let reads = 0;
const watcher = watch(workerData.file, () => {
  const text = readFileSync(workerData.file, 'utf8');
  reads++;
  const key = text.trimEnd();
  seen.set(key, (seen.get(key) ?? 0) + 1);
});
parentPort.on('message', () => {
  // the last change's event may still be on its way
  setTimeout(() => {
    watcher.close();
    parentPort.postMessage({ reads, seen: [...seen.keys()] });
  }, 200);
});
parentPort.postMessage('watching');
`;

s('200 tunnel changes: no read is empty, cut or anything but a document the store wrote', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-authfile-'));
  try {
    const store = new AuthfileStore(dir);
    await store.ensureAuthfile();
    const credential = await store.credential();
    const reader = new Worker(READER, { eval: true, workerData: { file: store.authfile } });
    await new Promise((resolve) => reader.once('message', resolve));
    const result = new Promise<{ reads: number; seen: string[] }>((resolve) => reader.once('message', resolve));
    const written = new Set<string>([renderAuthfile(credential, []).trimEnd()]);
    let last: number[] = [];
    // grow to 60 tunnels, then shrink to none and grow again: the file gets shorter as often as longer
    for (let i = 0; i < 200; i++) {
      const count = i < 60 ? i + 1 : i < 120 ? 120 - i : i - 120;
      const ports = Array.from({ length: count }, (_, k) => 20000 + ((k * 7 + i) % 500));
      await store.setAllowedPorts(ports);
      written.add(renderAuthfile(credential, ports).trimEnd());
      last = [...new Set(ports)].sort((a, b) => a - b);
    }
    reader.postMessage('stop');
    const { reads, seen } = await result;
    await reader.terminate();
    // inotify merges an event identical to the one still unread, so a loaded machine gives a few
    // reads fewer than changes (194 and 199 of 200 seen at a load average of 15): the reader must
    // still have followed nearly every change
    assert.ok(reads >= 150, `a read for nearly every change: ${reads} of 200`);
    const foreign = seen.filter((text) => !written.has(text));
    assert.equal(foreign.map((t) => JSON.stringify(t.slice(0, 80))), [], 'reads that were no written document');
    assert.equal(await store.allowedPorts(), last);
    assert.equal(JSON.parse(await readFile(store.authfile, 'utf8')), JSON.parse(renderAuthfile(credential, last)));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

s.run();
