// Runs a bundled script in each runtime, with the binaries fetched into .cache/runtimes
// (fetch-runtimes.mjs: bun, deno, and miniflare's workerd, pinned in test/runtimes/tools), on
// first use: argv arrays through execFile, never a shell. Plain
// JavaScript (types in runtimes.d.mts): `npm run bench` imports it without a TypeScript hook.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { CACHE_DIR, ensureRuntimes } from './fetch-runtimes.mjs';

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));

export const RUNTIMES = ['node', 'bun', 'deno', 'workerd'];

// The first start of Deno and workerd on a loaded machine takes seconds; a hung one must still end.
const LIMIT_MS = 120_000;

let fetching = null;
/** The runtimes fetched once per process (a failure stays the answer: every test names it). */
const fetched = () => (fetching ??= ensureRuntimes());

/** The runtime's binary, or an error that says how to get it. */
export function binaryOf(runtime, binDir = join(CACHE_DIR, 'node_modules/.bin')) {
  const file = `${binDir}/${runtime}`;
  if (!existsSync(file)) {
    throw new Error(`${runtime} is missing: ${file} does not exist. It is pinned in test/runtimes/tools/package.json (${runtime === 'workerd' ? 'miniflare and workerd' : runtime}); the runtime tests fetch it: \`node test/run.mjs runtimes\`.`);
  }
  return file;
}

/** The runtime's binary, fetched first if the cache does not hold it yet. */
export async function fetchedBinary(runtime) {
  await fetched();
  return binaryOf(runtime);
}

/** What a Node, Bun or Deno process running the bundle `file` printed on stdout. */
export async function runScript(runtime, file, args = []) {
  // Deno: node: specifiers need no flag, but reading files and the environment does; --no-config
  // keeps a deno.json of the working directory out of it
  const argv =
    runtime === 'node'
      ? [process.execPath, file, ...args]
      : runtime === 'bun'
        ? [await fetchedBinary('bun'), file, ...args]
        : [await fetchedBinary('deno'), 'run', '--allow-all', '--quiet', '--no-config', file, ...args];
  const { stdout } = await run(argv[0], argv.slice(1), { cwd: root, timeout: LIMIT_MS, maxBuffer: 16 << 20, env: { ...process.env, NO_COLOR: '1' } });
  return stdout;
}

/**
 * The Worker bundle `file` started in workerd through miniflare: `fetch` dispatches one request to
 * it; `close` stops workerd. nodejs_compat serves the node:* modules the kit imports. Modules are
 * listed by hand: miniflare refuses to guess what the bundle's dynamic import() (plugin loading)
 * would need.
 */
export async function startWorker(file) {
  await fetchedBinary('workerd');
  const { Miniflare } = await import(pathToFileURL(createRequire(join(CACHE_DIR, 'package.json')).resolve('miniflare')).href);
  const mf = new Miniflare({
    modules: [{ type: 'ESModule', path: `${root}worker.mjs`, contents: await readFile(file, 'utf8') }],
    compatibilityDate: '2026-07-30',
    compatibilityFlags: ['nodejs_compat'],
  });
  return {
    fetch: (url, init = {}) => mf.dispatchFetch(url, { ...init, signal: AbortSignal.timeout(LIMIT_MS) }),
    close: () => mf.dispose(),
  };
}

/** The body of the Worker bundle `file`'s answer to one request; an answer other than 200 throws. */
export async function runWorker(file, url = 'http://panel.test/') {
  const worker = await startWorker(file);
  try {
    const response = await worker.fetch(url);
    const text = await response.text();
    if (response.status !== 200) throw new Error(`the Worker answered ${response.status}: ${text}`);
    return text;
  } finally {
    await worker.close();
  }
}

/** Runs the bundle for `runtime`: a script for Node, Bun and Deno, a Worker for workerd. */
export const runIn = (runtime, file, args = []) =>
  runtime === 'workerd' ? runWorker(file, `http://panel.test/__scenario?${args.join('&')}`) : runScript(runtime, file, args);
