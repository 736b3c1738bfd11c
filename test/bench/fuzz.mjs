// `npm run bench -- --only=fuzz`: the route-table fuzz of the unit suite
// (test/unit/handlers/fuzz.test.ts) with many more generated requests per route than the suite's 40,
// and the sites' random file sequences (test/unit/sites/file-sequences.test.ts) with a tenth as many
// sequences as requests per route (the suite runs 20), run by the test runner in a child process;
// the bench fails when either does.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../', import.meta.url));

/** Runs the fuzz with `runs` requests per route (and `seed` when given); resolves with its wall time in ms. */
export async function runLongFuzz({ runs, seed, log }) {
  const sequences = Math.max(20, Math.round(runs / 10));
  const env = { ...process.env, FUZZ_RUNS: String(runs), SITE_SEQUENCE_RUNS: String(sequences), ...(seed ? { FUZZ_SEED: String(seed) } : {}) };
  log(`fuzz: ${runs} generated requests per route${seed ? `, seed ${seed}` : ''}; ${sequences} random file sequences on a site`);
  const started = performance.now();
  const child = spawn(process.execPath, ['test/run.mjs', 'unit/handlers/fuzz.test.ts', 'unit/sites/file-sequences.test.ts'], { cwd: root, env, stdio: 'inherit' });
  const [code, signal] = await once(child, 'exit');
  if (code !== 0) throw new Error(`the route-table fuzz or the file sequences failed (${signal ?? `exit ${code}`})`);
  return performance.now() - started;
}
