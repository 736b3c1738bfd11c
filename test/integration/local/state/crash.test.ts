import { spawn } from 'node:child_process';
import { watch } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { RecordCollection } from '../../../../lib/state/record-collection.ts';
import { withTimeout } from '../../../helpers/timeout.ts';

const writer = fileURLToPath(new URL('../../state/crash-writer.ts', import.meta.url));
const register = fileURLToPath(new URL('../../../helpers/register.mjs', import.meta.url));
const s = suite('store crash safety');

interface Writer {
  compactAfterBytes: number;
  pad: number;
}

/**
 * Runs the writer and SIGKILLs it: a random moment after its first acknowledgement, or (`midSnapshot`)
 * the moment a snapshot rewrite creates its temp file. Resolves with the acknowledged numbers.
 */
function runAndKill(file: string, start: number, options: Writer & { midSnapshot?: boolean }): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', register, writer, file, String(start), String(options.compactAfterBytes), String(options.pad)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const acknowledged: number[] = [];
    let buffer = '';
    let stderr = '';
    let armed = false;
    const tempPrefix = `.${basename(file)}.`;
    const watcher = options.midSnapshot
      ? watch(dirname(file), (_event, name) => {
          if (name?.startsWith(tempPrefix) && name.endsWith('.tmp')) child.kill('SIGKILL');
        })
      : undefined;
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) acknowledged.push(Number(line));
      if (!armed && !options.midSnapshot && acknowledged.length > 0) {
        armed = true;
        setTimeout(() => child.kill('SIGKILL'), Math.random() * 40);
      }
    });
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (_code, signal) => {
      watcher?.close();
      if (signal !== 'SIGKILL') reject(new Error(`writer exited without being killed: ${stderr}`));
      else resolve(acknowledged);
    });
  });
}

const Item = z.object({ id: z.string(), n: z.number(), pad: z.string() });

/**
 * Kills the writer `rounds` times; after each, the collection must load and hold every acknowledged
 * record. Returns how many were acknowledged, and after how many kills a snapshot rewrite was left
 * unfinished (its temp file, or journals it folded in, still there).
 */
async function crashLoop(rounds: number, options: Writer & { midSnapshot?: boolean }): Promise<{ acknowledged: number; unfinished: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'relay-crash-'));
  const file = join(dir, 'items.json');
  const acknowledged = new Set<number>();
  let start = 0;
  let unfinished = 0;
  try {
    for (let round = 0; round < rounds; round++) {
      for (const n of await runAndKill(file, start, options)) acknowledged.add(n);
      const names = await readdir(dir);
      if (names.some((name) => name.endsWith('.tmp')) || names.filter((name) => name.endsWith('.journal')).length > 1) unfinished++;
      const loaded = await RecordCollection.open({ file, record: Item, key: (item) => item.id });
      const present = new Set(loaded.value.map((item) => item.n));
      for (const n of acknowledged) assert.ok(present.has(n), `round ${round}: acknowledged ${n} missing`);
      start = Math.max(start, ...present) + 1;
    }
    return { acknowledged: acknowledged.size, unfinished };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

s('SIGKILL at random moments, 20 times: the collection always loads and keeps every acknowledged write', () =>
  withTimeout('crash loop', 120_000, async () => {
    assert.ok((await crashLoop(20, { compactAfterBytes: 16 * 1024, pad: 20 })).acknowledged >= 20);
  }),
);

s('SIGKILL in the middle of a snapshot rewrite, 10 times: the collection always loads and keeps every acknowledged write', () =>
  withTimeout('crash loop during compaction', 120_000, async () => {
    const { acknowledged, unfinished } = await crashLoop(10, { compactAfterBytes: 64 * 1024, pad: 2000 });
    assert.ok(acknowledged >= 10);
    assert.ok(unfinished >= 5, `only ${unfinished} of 10 kills landed inside a snapshot rewrite`);
  }),
);

s.run();
