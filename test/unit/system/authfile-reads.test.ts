// chisel reads its authfile on every write event (fsnotify), so it sees every intermediate state of a
// rewrite. A reader on another thread reads the file in a tight loop while 200 tunnel changes grow
// and shrink the grants: every read must be one of the documents written, never empty or cut.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AuthfileStore, renderAuthfile } from '../../../lib/system/common/authfile.ts';

const s = suite('chisel authfile: every state a watcher can read');

const READER = `
const { readFileSync } = require('node:fs');
const { parentPort, workerData } = require('node:worker_threads');
const seen = new Map();
let reads = 0;
let stop = false;
parentPort.on('message', () => { stop = true; });
function loop() {
  for (let i = 0; i < 2000; i++) {
    let text;
    try { text = readFileSync(workerData.file, 'utf8'); } catch { continue; }
    reads++;
    const key = text.trimEnd();
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  if (stop) parentPort.postMessage({ reads, seen: [...seen.keys()] });
  else setImmediate(loop);
}
loop();
`;

s('200 tunnel changes: no read is empty, cut or anything but a document the store wrote', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-authfile-'));
  try {
    const store = new AuthfileStore(dir);
    await store.ensureAuthfile();
    const credential = await store.credential();
    const reader = new Worker(READER, { eval: true, workerData: { file: store.authfile } });
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
    assert.ok(reads > 1000, `too few reads to say anything: ${reads}`);
    const foreign = seen.filter((text) => !written.has(text));
    assert.equal(foreign.map((t) => JSON.stringify(t.slice(0, 80))), [], 'reads that were no written document');
    assert.equal(await store.allowedPorts(), last);
    assert.equal(JSON.parse(await readFile(store.authfile, 'utf8')), JSON.parse(renderAuthfile(credential, last)));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

s.run();
