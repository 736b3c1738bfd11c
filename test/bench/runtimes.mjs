// What the kit app costs in each runtime. The same script (test/runtimes/bench-kit.ts)
// bundled for Node, Bun and Deno and as a Worker for workerd, each measuring in its own process:
// GET /api/tunnels and the ticket round trip, in µs per request and per round trip.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleFor } from '../runtimes/bundle.mjs';
import { pinnedVersions, TOOLS_DIR } from '../runtimes/fetch-runtimes.mjs';
import { RUNTIMES, runIn } from '../runtimes/runtimes.mjs';

/** The pinned versions of test/runtimes/tools (Node: this process). */
async function versions() {
  const pinned = pinnedVersions(JSON.parse(await readFile(join(TOOLS_DIR, 'package.json'), 'utf8')));
  return { node: process.version.slice(1), bun: pinned.bun, deno: pinned.deno, workerd: pinned.workerd };
}

/** One row per runtime: {runtime, version, clock, requests, tunnels, roundTrip} or {runtime, error}. */
export async function measureRuntimes({ dir, requests, log }) {
  const script = join(dir, 'bench-kit.mjs');
  const worker = join(dir, 'bench-worker.mjs');
  await bundleFor('node', fileURLToPath(new URL('../runtimes/bench-entry.ts', import.meta.url)), script);
  await bundleFor('worker', fileURLToPath(new URL('../runtimes/bench-worker.ts', import.meta.url)), worker);
  const pinned = await versions();
  const rows = [];
  // one runtime at a time: they would share the cores
  for (const runtime of RUNTIMES) {
    log(`runtimes: ${runtime}, ${requests} requests of each kind`);
    try {
      const printed = await runIn(runtime, runtime === 'workerd' ? worker : script, [String(requests)]);
      rows.push({ runtime, version: pinned[runtime], ...JSON.parse(printed.trim().split('\n').pop()) });
    } catch (error) {
      rows.push({ runtime, version: pinned[runtime], error: error.message.split('\n')[0] });
    }
  }
  return { requests, rows };
}
