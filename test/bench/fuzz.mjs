// `npm run bench -- --only=fuzz`: the route-table fuzz of the unit suite
// (test/unit/handlers/fuzz.test.ts) with many more generated requests per route than the suite's 40,
// run by the test runner in a child process; the bench fails when the fuzz does.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Runs the fuzz with `runs` requests per route (and `seed` when given); resolves with its wall time in ms. */
export async function runLongFuzz({ runs, seed, log }) {
  const env = { ...process.env, FUZZ_RUNS: String(runs), ...(seed ? { FUZZ_SEED: String(seed) } : {}) };
  log(`fuzz: ${runs} generated requests per route${seed ? `, seed ${seed}` : ''}`);
  const started = performance.now();
  const child = spawn(process.execPath, ['test/run.mjs', 'unit/handlers/fuzz.test.ts'], { cwd: root, env, stdio: 'inherit' });
  const [code, signal] = await once(child, 'exit');
  if (code !== 0) throw new Error(`the route-table fuzz failed (${signal ?? `exit ${code}`})`);
  return performance.now() - started;
}
