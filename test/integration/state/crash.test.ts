import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { withTimeout } from '../../helpers/timeout.ts';

const writer = fileURLToPath(new URL('./crash-writer.ts', import.meta.url));
const register = fileURLToPath(new URL('../../helpers/register.mjs', import.meta.url));
const s = suite('store crash safety');

/** Runs the writer until it has acknowledged a few writes, then kills it at a random moment. */
function runAndKill(file: string, start: number): Promise<number[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', register, writer, file, String(start)], { stdio: ['ignore', 'pipe', 'pipe'] });
    const acknowledged: number[] = [];
    let buffer = '';
    let stderr = '';
    let armed = false;
    child.stdout.on('data', (chunk) => {
      buffer += chunk;
      const lines = buffer.split('\n');
      buffer = lines.pop()!;
      for (const line of lines) acknowledged.push(Number(line));
      if (!armed && acknowledged.length > 0) {
        armed = true;
        setTimeout(() => child.kill('SIGKILL'), Math.random() * 40);
      }
    });
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (_code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`writer exited without being killed: ${stderr}`));
      else resolve(acknowledged);
    });
  });
}

s('SIGKILL at random moments, 20 times: the file always parses and keeps every acknowledged write', () =>
  withTimeout('crash loop', 120_000, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'relay-crash-'));
    const file = join(dir, 'items.json');
    const acknowledged = new Set<number>();
    let start = 0;
    try {
      for (let round = 0; round < 20; round++) {
        for (const n of await runAndKill(file, start)) acknowledged.add(n);
        const onDisk = JSON.parse(await readFile(file, 'utf8')) as number[];
        const present = new Set(onDisk);
        for (const n of acknowledged) assert.ok(present.has(n), `round ${round}: acknowledged ${n} missing`);
        start = Math.max(start, ...onDisk) + 1;
      }
      assert.ok(acknowledged.size >= 20);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }),
);

s.run();
