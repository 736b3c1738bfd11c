// The panel's CPU per request for the two answers it keeps in memory,
// GET /api/tunnels/agent-config (the key fingerprint: a watch, no stat per request) and
// GET /api/tunnels/status (built once per change), at 1,000 tunnels, beside GET /api/tunnels (a
// cached list: the floor). With BENCH_BASELINE_BUNDLE (a bundle built from another ref, e.g. main
// in a temporary checkout) the same routes on that bundle too, run for run interleaved, so both
// see the same load. CPU is the server process's own (/proc schedstat), load average beside each
// figure. `npm run bench -- --only=cached-answers` (after `npm run build`); never in timed tests.
import { autocannon } from './autocannon.mjs';
import { readFile, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { send } from './http.mjs';
import { cpuNs, startNode, stopChild } from './proc.mjs';
import { adminHeaders, seed } from './seed.mjs';

export const CACHED_TUNNELS = 1000;
const ROUTES = ['/api/tunnels', '/api/tunnels/agent-config', '/api/tunnels/status'];
/** Every this-many-th tunnel enabled: at start the sandbox issues a certificate per enabled tunnel without a vhost (minutes for 1,000). */
const ENABLED_EVERY = 40;
const CONNECTIONS = 10;

const median = (list) => [...list].sort((a, b) => a - b)[Math.floor((list.length - 1) / 2)];
const load1 = () => Number(loadavg()[0].toFixed(2));

async function startPanel(dir, bundlePath, flags, name) {
  const seeded = await seed(dir, { tunnelCount: CACHED_TUNNELS });
  const tunnelsFile = join(seeded.dataDir, 'tunnels.json');
  const tunnels = JSON.parse(await readFile(tunnelsFile, 'utf8'));
  await writeFile(tunnelsFile, JSON.stringify(tunnels.map((t, i) => ({ ...t, enabled: i % ENABLED_EVERY === 0 }))), { mode: 0o600 });
  const panel = startNode([...flags, bundlePath, '--config', seeded.configPath], { env: { NODE_ENV: 'production' }, cwd: dir, name, timeoutMs: 180_000 });
  await panel.ready;
  for (const path of ROUTES) {
    const answer = await send(`${panel.url}${path}`, { headers: adminHeaders() });
    if (answer.status !== 200) throw new Error(`${name}: GET ${path} answered ${answer.status}: ${answer.text.slice(0, 200)}`);
  }
  return panel;
}

/** One run of `seconds` against one route: requests and the server's CPU nanoseconds. */
async function run(panel, path, seconds) {
  const before = cpuNs(panel.pid);
  const result = await autocannon({ url: `${panel.url}${path}`, headers: adminHeaders(), connections: CONNECTIONS, duration: seconds, timeout: 10 });
  const ns = cpuNs(panel.pid) - before;
  const ok = result['2xx'];
  if (ok === 0 || result.non2xx > 0) throw new Error(`GET ${path}: ${result.non2xx} answers not 2xx`);
  return { requests: ok, usPerRequest: ns / 1000 / ok, load: load1(), bytes: result.throughput.total / ok };
}

/**
 * Starts this bundle's panel (and the baseline's, when given), then for `runs` rounds measures
 * every route on each panel in turn after a warm-up.
 */
export async function measureCachedAnswers({ dir, bundlePath, baselineBundle, flags, runs = 3, seconds = 3, warmupSeconds = 1, log }) {
  const panels = [{ label: 'this build', panel: await startPanel(join(dir, 'new'), bundlePath, flags, 'panel (this build)') }];
  try {
    if (baselineBundle) panels.push({ label: 'baseline', panel: await startPanel(join(dir, 'old'), baselineBundle, flags, 'panel (baseline)') });
    for (const { panel } of panels) for (const path of ROUTES) await run(panel, path, warmupSeconds);
    const figures = Object.fromEntries(panels.map(({ label }) => [label, Object.fromEntries(ROUTES.map((p) => [p, []]))]));
    for (let round = 0; round < runs; round++) {
      log(`cached answers: round ${round + 1} of ${runs}, load average ${load1()}`);
      for (const path of ROUTES) for (const { label, panel } of panels) figures[label][path].push(await run(panel, path, seconds));
    }
    return { tunnels: CACHED_TUNNELS, enabled: Math.ceil(CACHED_TUNNELS / ENABLED_EVERY), connections: CONNECTIONS, figures };
  } finally {
    for (const { panel } of panels) await stopChild(panel);
  }
}

const us = (n) => `${n.toFixed(1)} µs`;

/** One line per bundle and route: median CPU per request, × GET /api/tunnels, × the baseline, each run's load average. */
export function describeCachedAnswers(r) {
  const lines = [`CPU per request at ${r.tunnels} tunnels (${r.enabled} enabled), ${r.connections} connections, median of ${Object.values(Object.values(r.figures)[0])[0].length} interleaved runs:`];
  const medianOf = (label, path) => median(r.figures[label][path].map((f) => f.usPerRequest));
  for (const label of Object.keys(r.figures)) {
    for (const path of ROUTES) {
      const runs = r.figures[label][path];
      const m = medianOf(label, path);
      const floor = m / medianOf(label, '/api/tunnels');
      const vsBaseline = label !== 'baseline' && r.figures.baseline ? `, ${(m / medianOf('baseline', path)).toFixed(2)}× the baseline` : '';
      lines.push(`- ${label} GET ${path}: ${us(m)} (${floor.toFixed(2)}× GET /api/tunnels${vsBaseline}; ${Math.round(runs[0].bytes)} B; runs ${runs.map((f) => us(f.usPerRequest)).join(', ')}; load average ${runs.map((f) => f.load).join(', ')})`);
    }
  }
  return lines.join('\n');
}
