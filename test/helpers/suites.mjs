// Loads uvu suites from TypeScript files into this process and runs them: the runner's in-process
// path (serial groups, --jobs 1) and each parallel worker (test/helpers/run-worker.mjs) use it.
import { relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { mirrorable, mirrored } from './mirror.mjs';

// uvu queues each suite's run() instead of starting it (UVU_DEFER); UVU_QUEUE is read on every run()
globalThis.UVU_DEFER = 1;
globalThis.UVU_QUEUE = [];

/**
 * How this process loads TypeScript: `mirror` (compiled copies, test/helpers/mirror.mjs) while it
 * has run nothing but unit files, else `hooks` (test/helpers/register.mjs) from the first other file
 * on, or always with RELAY_TEST_HOOKS=1. A process never goes back: modules loaded one way are not
 * shared with the other, so a unit file after an integration file loads through the hooks too.
 */
let loading;
const useHooks = async () => {
  loading = 'hooks';
  await import('./register.mjs');
};

/** The URL to import a TypeScript source by, as this process loads them. */
async function sourceUrl(path) {
  if (loading === 'mirror' && mirrorable(path)) {
    try {
      return await mirrored(path);
    } catch (error) {
      // a source esbuild refuses fails its own file the same way through the hooks, with the hooks' message
      process.stderr.write(`test/helpers/mirror.mjs: ${error?.message ?? error}; loading through the TypeScript hooks from here on\n`);
      await useHooks();
    }
  }
  if (loading !== 'hooks') await useHooks();
  return pathToFileURL(path).href;
}

// what a test imports by a path worked out at run time (test/helpers/import-source.ts)
globalThis.RELAY_IMPORT_SOURCE = async (path) => import(await sourceUrl(path));

/**
 * Unit suites run the panel with the Request and Response classes its Node edge uses
 * (@whatwg-node/fetch's), whatever ran before them in the process: a file that attached an edge
 * used to switch the handlers' Response class for every file after it in its worker, and node's
 * own classes cost about 0.1 ms of CPU more per request of a kit.
 */
let edgeClasses;
async function useEdgeClasses() {
  const testing = fileURLToPath(new URL('../../lib/testing.ts', import.meta.url));
  edgeClasses ??= Promise.all([import('@whatwg-node/fetch'), globalThis.RELAY_IMPORT_SOURCE(testing)])
    .then(([{ Request, Response }, { useFetchClasses }]) => useFetchClasses({ Request, Response }));
  await edgeClasses;
}

/** Imports the files, then runs their suites in file order; `write` gets uvu's report, `timed` each file's wall time. */
export async function runSuites(files, root, write, timed = () => {}) {
  const counts = { passed: 0, failed: 0, skipped: 0 };
  const unit = (file) => relative(root, file).startsWith('unit/');
  loading ??= files.every(unit) && !process.env.RELAY_TEST_HOOKS ? 'mirror' : undefined;
  if (loading === 'mirror' && !files.every(unit)) await useHooks();
  if (files.some(unit)) await useEdgeClasses();
  globalThis.UVU_QUEUE = [];
  for (const [index, file] of files.entries()) {
    globalThis.UVU_INDEX = index;
    globalThis.UVU_QUEUE.push([relative(root, file)]);
    await import(await sourceUrl(file));
  }
  for (const group of globalThis.UVU_QUEUE) {
    const file = group.shift();
    const started = Date.now();
    write(`\n${file}\n`);
    for (const runSuite of group) {
      const [errors, ran, skips, total] = await runSuite();
      counts.passed += ran;
      counts.skipped += skips;
      counts.failed += total - ran;
      if (errors !== true) write(`\n${errors}\n`);
      // uvu returns from its `finally`, which drops a before hook's error (test/helpers/uvu-hook-errors.mjs prints it)
      else if (ran < total) write(`\n${total - ran} test(s) did not run: the suite's before hook threw (its error is printed above)\n`);
    }
    timed(file, Date.now() - started);
  }
  return counts;
}
