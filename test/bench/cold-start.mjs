// Cold start (issue 12): spawn -> first 200 on /api/health, the panel against a bare node:http
// server, both on copies of one seeded box. Panel and raw starts alternate so that load from the
// other engineers on the machine falls on both alike. `npm run bench -- --only=cold-start` runs
// this part alone.
import { cp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { probe, send } from './http.mjs';
import { startNode, stopChild } from './proc.mjs';
import { seed } from './seed.mjs';

const RAW_SERVER = fileURLToPath(new URL('./raw-server.mjs', import.meta.url));
/** The target: the panel's median within this factor of the raw server's, same run. */
export const COLD_START_LIMIT = 1.3;

export const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/**
 * A seeded box that has run once: its host (vhosts, certificates, authfile) matches its records,
 * as on a real box, so a cold start measures start-up and not the start-up repair of 170 tunnels
 * whose vhosts a fresh seed never wrote. Its /api/health bytes are what the raw server answers.
 */
async function template(dir, panelArgs) {
  const { configPath } = await seed(dir);
  const first = startNode([...panelArgs, '--config', configPath], { env: { NODE_ENV: 'production' }, cwd: dir, name: 'cold-start template' });
  try {
    await first.ready;
    const health = await probe(`${first.url}/api/health`);
    if (health.status !== 200) throw new Error(`cold-start template: GET /api/health ${health.status} ${health.text}`);
    const healthFile = join(dir, '..', 'cold-health.json');
    await writeFile(healthFile, health.body);
    return { dir, rawArgs: [RAW_SERVER, `/api/health=${healthFile}`] };
  } finally {
    await stopChild(first);
  }
}

/** A copy of the template box at `dir`, its configuration pointing at its own data. */
async function copyBox(templateDir, dir) {
  await cp(templateDir, dir, { recursive: true });
  const configPath = join(dir, 'config.json');
  const config = JSON.parse(await readFile(configPath, 'utf8'));
  await writeFile(configPath, JSON.stringify({ ...config, dataDir: join(dir, 'data') }), { mode: 0o600 });
  return { configPath };
}

/** Spawn `args` (the config path appended for the panel) and time it to the first 200 on /api/health. */
async function coldStart(dir, args, name) {
  const spawnedAt = performance.now();
  const server = startNode(args, { env: { NODE_ENV: 'production' }, cwd: dir, name });
  try {
    await server.ready;
    const listeningMs = performance.now() - spawnedAt;
    let attempts = 0;
    for (;;) {
      attempts++;
      const response = await send(`${server.url}/api/health`, { timeoutMs: 5000 }).catch(() => undefined);
      if (response?.status === 200) break;
      if (performance.now() - spawnedAt > 15_000) throw new Error(`${name}: no 200 on /api/health within 15 s`);
      await new Promise((r) => setTimeout(r, 2));
    }
    return { firstOkMs: performance.now() - spawnedAt, listeningMs, attempts };
  } finally {
    await stopChild(server);
  }
}

/**
 * `count` cold starts of the panel (`panelArgs`: node flags and the bundle) and of the raw server,
 * alternating, each panel start on a fresh copy of the template box, at the path it was made at.
 */
export async function measureColdStarts({ workDir, panelArgs, count, checkInterrupted = () => {} }) {
  // every copy lies where the template was made: its vhosts name their own paths, as on a box, so
  // the panel's start-up vhost refresh finds nothing to rewrite (a copy elsewhere would differ in each)
  const at = join(workDir, 'cold-box');
  const box = await template(at, panelArgs);
  const kept = join(workDir, 'cold-template');
  await rename(at, kept);
  const panel = [];
  const raw = [];
  for (let i = 1; i <= count; i++) {
    checkInterrupted();
    const dir = at;
    await rm(dir, { recursive: true, force: true });
    const { configPath } = await copyBox(kept, dir);
    panel.push(await coldStart(dir, [...panelArgs, '--config', configPath], `cold start ${i}`));
    checkInterrupted();
    raw.push(await coldStart(dir, box.rawArgs, `raw cold start ${i}`));
  }
  const medianMs = median(panel.map((c) => c.firstOkMs));
  const rawMedianMs = median(raw.map((c) => c.firstOkMs));
  return { medianMs, runs: panel, raw: { medianMs: rawMedianMs, runs: raw }, ratio: medianMs / rawMedianMs };
}

/** The target row of the issue: the panel's median within 1.3× the raw server's, same run. */
export function coldStartTarget(cold) {
  return {
    figure: 'cold start',
    target: `≤ ${COLD_START_LIMIT}× a bare node:http server`,
    measured: `${cold.medianMs.toFixed(0)} ms, ${cold.ratio.toFixed(2)}× (median of ${cold.runs.length}; the raw server: ${cold.raw.medianMs.toFixed(0)} ms)`,
    met: cold.ratio <= COLD_START_LIMIT,
  };
}

export const describeColdStarts = (cold) =>
  `cold start: panel ${cold.runs.map((c) => c.firstOkMs.toFixed(1)).join(', ')} ms; raw ${cold.raw.runs.map((c) => c.firstOkMs.toFixed(1)).join(', ')} ms; medians ${cold.medianMs.toFixed(1)} / ${cold.raw.medianMs.toFixed(1)} ms (${cold.ratio.toFixed(2)}×)`;
