// Loads uvu suites from TypeScript files into this process and runs them: the runner's in-process
// path (serial groups, --jobs 1) and each parallel worker (test/helpers/run-worker.mjs) use it.
import { relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import './register.mjs';

// uvu queues each suite's run() instead of starting it (UVU_DEFER); UVU_QUEUE is read on every run()
globalThis.UVU_DEFER = 1;
globalThis.UVU_QUEUE = [];

/**
 * Unit suites run the panel with the Request and Response classes its Node edge uses
 * (@whatwg-node/fetch's), whatever ran before them in the process: a file that attached an edge
 * used to switch the handlers' Response class for every file after it in its worker, and node's
 * own classes cost about 0.1 ms of CPU more per request of a kit.
 */
let edgeClasses;
async function useEdgeClasses() {
  edgeClasses ??= Promise.all([import('@whatwg-node/fetch'), import('../../lib/testing.ts')])
    .then(([{ Request, Response }, { useFetchClasses }]) => useFetchClasses({ Request, Response }));
  await edgeClasses;
}

/** Imports the files, then runs their suites in file order; `write` gets uvu's report, `timed` each file's wall time. */
export async function runSuites(files, root, write, timed = () => {}) {
  const counts = { passed: 0, failed: 0, skipped: 0 };
  if (files.some((file) => relative(root, file).startsWith('unit/'))) await useEdgeClasses();
  globalThis.UVU_QUEUE = [];
  for (const [index, file] of files.entries()) {
    globalThis.UVU_INDEX = index;
    globalThis.UVU_QUEUE.push([relative(root, file)]);
    await import(pathToFileURL(file).href);
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
      // uvu returns from its `finally`, which drops a before hook's error: say at least where it failed
      else if (ran < total) write(`\n${total - ran} test(s) did not run: the suite's before hook threw (uvu does not pass its error on)\n`);
    }
    timed(file, Date.now() - started);
  }
  return counts;
}
