// `npm run bench`: speed, CPU per request, memory and start-up of the bundled panel,
// against a raw node:http server answering the same bytes, in one run.
//
// Settings (env or --flag=value): BENCH_CONNECTIONS (50), BENCH_WARMUP seconds (2),
// BENCH_DURATION seconds per measured run (5), BENCH_RUNS (2), BENCH_COLD_STARTS (7),
// BENCH_ROUNDTRIPS per measured run (60), BENCH_ROUNDTRIP_CONCURRENCY (4), BENCH_OUT (.bench),
// BENCH_BUNDLE (dist/server.mjs), BENCH_WRITE_ROUNDTRIPS per write-path run (3000).
// BENCH_TRAFFIC_RATE requests/s through one tunnel vhost (1000), BENCH_TRAFFIC_API_RATE API requests/s
// meanwhile (100). As flags: `npm run bench -- --duration=10 --cold-starts=9`. BENCH_ONLY=cold-start
// (`--only=cold-start`) measures the cold starts alone, BENCH_ONLY=traffic the tunnel traffic alone,
// BENCH_ONLY=runtimes the kit app in Node, Bun, Deno and workerd alone (BENCH_RUNTIME_REQUESTS, 2000).
// BENCH_ONLY=traffic-receiver the traffic receiver's CPU per line alone, before the batching receiver (BENCH_TRAFFIC_BASE, a git ref) beside this tree's.
// BENCH_ONLY=panel-lists (`--only=panel-lists`) the tunnels page with 1,000 tunnels in Chromium alone.
// BENCH_ONLY=cached-answers (`--only=cached-answers`, never part of the full run) the CPU per request of
// agent-config and the tunnel status at 1,000 tunnels, beside BENCH_BASELINE_BUNDLE when given.
// BENCH_ONLY=upload-hostile (`--only=upload-hostile`, never part of the full run) 50 MB multipart bodies of
// plain bytes and of the delimiter's own, formidable against the edge's parser.
// BENCH_ONLY=nginx-changes (`--only=nginx-changes`, never part of the full run) ten concurrent vhost changes on
// a real nginx with 1,000 vhosts, one at a time against together (group commit).
// BENCH_ONLY=per-name-shapes (`--only=per-name-shapes`, never part of the full run) 1,000 per-name certificates on a
// real nginx as a server each against one shared server with root's certificate map: nginx -t, reload, a change, memory,
// nginx's CPU per full and resumed TLS handshake.
// BENCH_ONLY=tunnel-changes (`--only=tunnel-changes`, never part of the full run) a tunnel's create, toggle and
// delete through the API on real nginx with its certificate in place, at 10 and 1,000 vhosts, and ten toggles at once,
// per-name and wildcard certificates beside each other.
// BENCH_ONLY=fuzz (`--only=fuzz`, never part of the full run) the route-table fuzz of the unit suite
// with BENCH_FUZZ_RUNS generated requests per route (2000; the suite runs 40), BENCH_FUZZ_SEED to repeat one,
// and the sites' random file sequences, a tenth as many (the suite runs 20).
// BENCH_ONLY=stream (`--only=stream`, never part of the full run) nginx's stream proxy of a TCP tunnel against direct
// loopback: throughput and connection setup as ratios (test/bench/stream.ts).
// BENCH_ONLY=scale (`--only=scale`, never part of the full run) a box of 1,000 tunnels beside one of 10:
// restarts, the first start after an upgrade that changed every template, GET /api/tunnels, tunnel changes and the meter (test/bench/scale.mjs).
// Traffic goes to 127.0.0.1 only. Run after `node build/build.mjs` (the npm script does).
import { autocannon, autocannonVersion } from './autocannon.mjs';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdir, mkdtemp, rm, stat, writeFile, readFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { coldStartTarget, describeColdStarts, measureColdStarts } from './cold-start.mjs';
import { healthWhileHashing } from './hashing.mjs';
import { bundle, bundleFileOf } from '../../build/build.mjs';
import { createClient, isRouteMissing, probe, send } from './http.mjs';
import { percentile } from './paced.mjs';
import { clkTck, cpuModel, cpuNs, cpuTicks, killAllChildrenNow, memory, startNode, stopAllChildren, stopChild } from './proc.mjs';
import { describePanelLoad, panelFirstLoad } from './panel-size.mjs';
import { describePanelLists, measurePanelLists, panelListsTargets } from './panel-lists.mjs';
import { renderMarkdown, renderRuntimes, renderTraffic } from './report.mjs';
import { measureRuntimes } from './runtimes.mjs';
import { runLongFuzz } from './fuzz.mjs';
import { describeCachedAnswers, measureCachedAnswers } from './cached-answers.mjs';
import { logViewersTarget, measureLogViewers, statsTarget } from './services.mjs';
import { measureUpload, sitesTarget, uploadTarget } from './sites.mjs';
import { measureMetricsOverhead, metricsTarget } from './metrics.mjs';
import { measureTrafficIsolation, trafficTargets } from './traffic.mjs';
import { measureTrafficReceiver } from './traffic-receiver.mjs';
import { describeScale, measureScale } from './scale.mjs';
import {
  CAPABILITY,
  COUNTS,
  DOMAIN,
  INBOX_AGENT,
  adminHeaders,
  agentHeaders,
  agentLabel,
  roundTripTarget,
  seed,
} from './seed.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
/** lib/node-flags.ts: the panel runs with these wherever it is launched (test/unit/build/node-flags.test.ts keeps them in step). */
export const PANEL_FLAGS = ['--max-semi-space-size=4'];
const TICKET_RATE_LIMIT = 10; // per agent per minute (spec/tickets.md, Limits)

// ---------------------------------------------------------------- settings

function setting(name, fallback) {
  const flag = `--${name.toLowerCase().replace(/^bench_/, '').replace(/_/g, '-')}=`;
  const fromFlag = process.argv.slice(2).find((a) => a.startsWith(flag));
  const raw = fromFlag ? fromFlag.slice(flag.length) : process.env[name];
  if (raw === undefined || raw === '') return fallback;
  if (typeof fallback === 'number') {
    const value = Number(raw);
    if (!Number.isFinite(value) || value < 0) throw new Error(`${name}: not a number: ${raw}`);
    return value;
  }
  return raw;
}

const settings = {
  connections: setting('BENCH_CONNECTIONS', 50),
  warmupSeconds: setting('BENCH_WARMUP', 2),
  durationSeconds: setting('BENCH_DURATION', 5),
  runs: Math.max(1, Math.round(setting('BENCH_RUNS', 2))),
  coldStarts: Math.max(1, Math.round(setting('BENCH_COLD_STARTS', 7))),
  roundTrip: {
    perRun: Math.round(setting('BENCH_ROUNDTRIPS', 60)),
    concurrency: Math.max(1, Math.round(setting('BENCH_ROUNDTRIP_CONCURRENCY', 4))),
    warmup: COUNTS.agents,
    sources: COUNTS.agents,
    perAgentBudget: 0,
  },
  /** Round-trip growth with the stored tickets, on a panel with the ticket limits lifted (test/bench/write-path-server.ts). */
  writePath: {
    storedTickets: [100, 1000, 10000],
    concurrency: [4, 32],
    // V8 optimizes about 330 functions of the request path over the first few thousand requests
    // (TurboFan: a fifth of the CPU of 3,000 round trips after 200, 7.6 % over 12,000): 3,000 per row
    // measure mostly the path, not the JIT.
    roundTrips: Math.max(1, Math.round(setting('BENCH_WRITE_ROUNDTRIPS', 3000))),
    warmup: 100,
  },
  /** Requests/s through one tunnel vhost, and the API's paced load meanwhile */
  traffic: { rate: setting('BENCH_TRAFFIC_RATE', 1000), apiRate: setting('BENCH_TRAFFIC_API_RATE', 100) },
  /** Measured requests of each kind per runtime, in process (test/bench/runtimes.mjs) */
  runtimeRequests: Math.max(1, Math.round(setting('BENCH_RUNTIME_REQUESTS', 2000))),
  /** Generated requests per route for `--only=fuzz` (test/bench/fuzz.mjs) */
  fuzz: { runs: Math.max(1, Math.round(setting('BENCH_FUZZ_RUNS', 2000))), seed: setting('BENCH_FUZZ_SEED', 0) },
  outDir: setting('BENCH_OUT', '.bench'),
  /** another bundle to measure (e.g. one built from another branch); the default is the npm script's build */
  bundle: setting('BENCH_BUNDLE', 'dist/server.mjs'),
  /** a bundle of another ref to measure beside this one (`--only=cached-answers`) */
  baselineBundle: setting('BENCH_BASELINE_BUNDLE', ''),
  /** `cold-start` or `traffic`: that part alone (while working on it); empty: everything */
  only: setting('BENCH_ONLY', ''),
};
const bundlePath = resolve(root, settings.bundle);
const panelArgs = [...PANEL_FLAGS, bundlePath];
const ONLY = { 'upload-hostile': () => runScript('upload-hostile.ts'), 'cold-start': () => coldStartOnly(), traffic: () => trafficOnly(), 'traffic-receiver': () => measureTrafficReceiver({ log }), runtimes: () => runtimesOnly(), 'panel-lists': () => panelListsOnly(), fuzz: () => fuzzOnly(), 'cached-answers': () => cachedAnswersOnly(), scale: () => scaleOnly(), 'nginx-changes': () => runScript('nginx-changes.ts'), 'per-name-shapes': () => runScript('per-name-shapes.ts'), 'tunnel-changes': () => runScript('tunnel-changes.ts'), stream: () => runScript('stream.ts') };
if (settings.only && !ONLY[settings.only]) throw new Error(`BENCH_ONLY: unknown part '${settings.only}' (${Object.keys(ONLY).join(', ')})`);
{
  // Each source agent may request 10 tickets a minute: the probe (1, agent 1 only), the warm-up
  // (1 each) and the measured runs must fit in it.
  const rt = settings.roundTrip;
  const perAgentPerRun = Math.floor((TICKET_RATE_LIMIT - 2) / settings.runs);
  const wanted = Math.ceil(rt.perRun / rt.sources);
  if (wanted > perAgentPerRun) {
    console.error(`bench: BENCH_ROUNDTRIPS=${rt.perRun} would exceed the ticket rate limit; using ${perAgentPerRun * rt.sources}`);
    rt.perRun = perAgentPerRun * rt.sources;
  }
  rt.perAgentBudget = 2 + settings.runs * Math.ceil(rt.perRun / rt.sources);
}

// ---------------------------------------------------------------- cleanup

let tempRoot;
let currentLoad;
let interrupted = false;

async function cleanup() {
  try {
    currentLoad?.stop?.();
  } catch {}
  await stopAllChildren();
  if (tempRoot) await rm(tempRoot, { recursive: true, force: true }).catch(() => {});
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    if (interrupted) return;
    interrupted = true;
    console.error(`\nbench: ${signal}, stopping the servers`);
    cleanup().finally(() => process.exit(130));
  });
}
process.on('exit', killAllChildrenNow);

function checkInterrupted() {
  if (interrupted) throw new Error('interrupted');
}

const log = (message) => console.error(`bench: ${message}`);

// ---------------------------------------------------------------- measuring

async function autocannonLoad(target, seconds) {
  checkInterrupted();
  const load = autocannon({
    url: target.url,
    method: target.method,
    headers: target.body === undefined ? target.headers : { 'content-type': 'application/json', ...target.headers },
    body: target.body === undefined ? undefined : JSON.stringify(target.body),
    connections: settings.connections,
    duration: seconds,
    timeout: 10,
  });
  currentLoad = load;
  try {
    return await load;
  } finally {
    currentLoad = undefined;
  }
}

function statusCodes(result) {
  return Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, { count }]) => [code, count]));
}

/** Warm-up, then `runs` measured runs with the server's CPU ticks read around each. */
async function measureLoad(target, pid) {
  await autocannonLoad(target, settings.warmupSeconds);
  const runs = [];
  for (let i = 0; i < settings.runs; i++) {
    const ticksBefore = cpuTicks(pid);
    const started = performance.now();
    const result = await autocannonLoad(target, settings.durationSeconds);
    const elapsedS = (performance.now() - started) / 1000;
    const ticks = cpuTicks(pid) - ticksBefore;
    const requests = result.requests.total;
    runs.push({
      requests,
      elapsedS,
      reqPerSec: requests / result.duration,
      durationS: result.duration,
      p50Ms: result.latency.p50,
      p99Ms: result.latency.p99,
      meanMs: result.latency.average,
      errors: result.errors,
      timeouts: result.timeouts,
      statusCodes: statusCodes(result),
      cpuTicks: ticks,
      cpuUsPerReq: requests ? (ticks / clkTck()) * 1e6 / requests : NaN,
      rssAfter: memory(pid).rss,
    });
  }
  return runs;
}

/** `count` round trips, `concurrency` at a time; sources round-robin over the agents. */
async function roundTrips(panel, instances, count, concurrency, firstSource = 0) {
  const client = createClient({ maxSockets: concurrency * 2 });
  const latencies = [];
  const statuses = {};
  const failures = [];
  let next = 0;
  const count1 = (key) => (statuses[key] = (statuses[key] ?? 0) + 1);
  const one = async (source) => {
    const target = roundTripTarget(source);
    const started = performance.now();
    const requested = await client.request(`${panel.url}/api/tickets`, {
      method: 'POST',
      headers: agentHeaders(source),
      body: { scope: CAPABILITY, instanceId: instances[source].instanceId, target: agentLabel(target) },
    });
    count1(`POST /api/tickets ${requested.status}`);
    const ticketId = requested.json()?.ticket?.id;
    if (requested.status !== 201 || !ticketId) {
      failures.push(`POST /api/tickets by ${agentLabel(source)}: ${requested.status} ${requested.text.slice(0, 200)}`);
      return 1;
    }
    const validated = await client.request(`${panel.url}/api/tickets/validate`, {
      method: 'POST',
      headers: agentHeaders(target),
      body: { ticketId },
    });
    count1(`POST /api/tickets/validate ${validated.status}`);
    if (validated.status !== 200 || validated.json()?.valid !== true) {
      failures.push(`POST /api/tickets/validate by ${agentLabel(target)}: ${validated.status} ${validated.text.slice(0, 200)}`);
      return 2;
    }
    latencies.push(performance.now() - started);
    return 2;
  };
  let requests = 0;
  const worker = async () => {
    while (next < count) {
      checkInterrupted();
      const source = (firstSource + next++) % COUNTS.agents;
      try {
        const sent = await one(source);
      requests += sent;
      } catch (error) {
        failures.push(`${agentLabel(source)}: ${error.message}`);
      }
    }
  };
  const started = performance.now();
  try {
    await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  } finally {
    client.close();
  }
  const elapsedS = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { completed: latencies.length, requests, elapsedS, latencies, statuses, failures };
}

async function measureRoundTrip(panel, instances) {
  const rt = settings.roundTrip;
  await roundTrips(panel, instances, rt.warmup, rt.concurrency);
  const runs = [];
  for (let i = 0; i < settings.runs; i++) {
    const ticksBefore = cpuTicks(panel.pid);
    const nsBefore = cpuNs(panel.pid);
    const r = await roundTrips(panel, instances, rt.perRun, rt.concurrency, i * 7);
    const ticks = cpuTicks(panel.pid) - ticksBefore;
    const ns = cpuNs(panel.pid) - nsBefore;
    runs.push({
      roundTrips: r.completed,
      requests: r.requests,
      elapsedS: r.elapsedS,
      durationS: r.elapsedS,
      reqPerSec: r.requests / r.elapsedS,
      roundTripsPerSec: r.completed / r.elapsedS,
      p50Ms: percentile(r.latencies, 50),
      p99Ms: percentile(r.latencies, 99),
      meanMs: r.latencies.reduce((a, b) => a + b, 0) / (r.latencies.length || 1),
      errors: r.failures.length,
      failures: r.failures.slice(0, 5),
      statusCodes: r.statuses,
      cpuTicks: ticks,
      cpuUsPerReqTicks: r.requests ? (ticks / clkTck()) * 1e6 / r.requests : NaN,
      // too few clock ticks in so short a run: the schedstat nanoseconds are the figure here
      cpuNs: ns,
      cpuUsPerReq: r.requests ? ns / 1000 / r.requests : NaN,
      cpuUsPerRoundTrip: r.completed ? ns / 1000 / r.completed : NaN,
      rssAfter: memory(panel.pid).rss,
    });
  }
  return runs;
}

function aggregate(runs) {
  const requests = runs.reduce((a, r) => a + r.requests, 0);
  const seconds = runs.reduce((a, r) => a + r.durationS, 0);
  const ticks = runs.reduce((a, r) => a + r.cpuTicks, 0);
  return {
    requests,
    reqPerSec: requests / seconds,
    p99Ms: Math.max(...runs.map((r) => r.p99Ms)),
    cpuTicks: ticks,
    cpuUsPerReq: requests ? (ticks / clkTck()) * 1e6 / requests : NaN,
    rssAfter: runs.at(-1).rssAfter,
  };
}

/**
 * The ticket round trip at each stored-ticket count and concurrency, each on a freshly seeded panel
 * with the ticket limits lifted (warm-up first). Every answer comes after its write is on disk.
 */
async function measureWritePath(writeBundle) {
  const wp = settings.writePath;
  const rows = [];
  for (const stored of wp.storedTickets) {
    for (const concurrency of wp.concurrency) {
      checkInterrupted();
      const dir = join(tempRoot, `write-${stored}-${concurrency}`);
      const seeded = await seed(dir, { storedTickets: stored });
      const server = startNode([writeBundle, '--config', seeded.configPath], { env: { NODE_ENV: 'production' }, cwd: dir, name: `write path ${stored}` });
      try {
        await server.ready;
        await roundTrips(server, seeded.instances, wp.warmup, concurrency);
        const nsBefore = cpuNs(server.pid);
        const r = await roundTrips(server, seeded.instances, wp.roundTrips, concurrency);
        const ns = cpuNs(server.pid) - nsBefore;
        const row = {
          storedTickets: stored,
          storedAtStart: seeded.counts.tickets + wp.warmup,
          storedAtEnd: seeded.counts.tickets + wp.warmup + r.completed,
          concurrency,
          roundTrips: r.completed,
          requests: r.requests,
          elapsedS: r.elapsedS,
          roundTripsPerSec: r.completed / r.elapsedS,
          cpuUsPerReq: ns / 1000 / r.requests,
          p50Ms: percentile(r.latencies, 50),
          p99Ms: percentile(r.latencies, 99),
          failures: r.failures.slice(0, 5),
          statusCodes: r.statuses,
        };
        rows.push(row);
        log(`write path: ${stored} stored, ${concurrency} concurrent: ${row.roundTripsPerSec.toFixed(0)} round trips/s, ${row.cpuUsPerReq.toFixed(0)} CPU µs/req`);
      } finally {
        await stopChild(server);
        await rm(dir, { recursive: true, force: true });
      }
    }
  }
  return rows;
}

// ---------------------------------------------------------------- phases

function writePathTargets(rows) {
  const at = (stored, concurrency) => rows.find((r) => r.storedTickets === stored && r.concurrency === concurrency);
  const cpu = (r) => (r ? `${r.cpuUsPerReq.toFixed(0)} µs` : 'n/a');
  const targets = [];
  const at1000 = at(1000, 4);
  targets.push({ figure: 'ticket round trip CPU µs/req, 1,000 stored tickets (4 concurrent)', target: '≤ 200 µs', measured: cpu(at1000), met: at1000 ? at1000.cpuUsPerReq <= 200 : null });
  for (const concurrency of settings.writePath.concurrency) {
    const small = at(100, concurrency);
    const large = at(10000, concurrency);
    const growth = small && large ? large.cpuUsPerReq / small.cpuUsPerReq : NaN;
    targets.push({
      figure: `ticket round trip CPU, 10,000 vs 100 stored tickets (${concurrency} concurrent)`,
      target: '≤ 1.3×',
      measured: Number.isFinite(growth) ? `${growth.toFixed(2)}× (${cpu(large)} vs ${cpu(small)})` : 'n/a',
      met: Number.isFinite(growth) ? growth <= 1.3 : null,
    });
  }
  const busiest = rows.filter((r) => r.concurrency === 32);
  const slowest = busiest.length ? busiest.reduce((a, b) => (a.roundTripsPerSec < b.roundTripsPerSec ? a : b)) : undefined;
  targets.push({
    figure: 'ticket round trips/s at 32 concurrent (the slowest stored-ticket count)',
    target: '≥ 1,500',
    measured: slowest ? `${slowest.roundTripsPerSec.toFixed(0)} (${slowest.storedTickets} stored)` : 'n/a',
    met: slowest ? slowest.roundTripsPerSec >= 1500 : null,
  });
  return targets;
}

async function main() {
  const startedAt = new Date();
  const loadBefore = loadavg();
  const launcherBytes = await stat(bundlePath).then((s) => s.size, () => {
    throw new Error(`${relative(root, bundlePath)} not found: run \`npm run bench\` (it builds first)`);
  });
  // the bundle beside its launcher; an older build (BENCH_BUNDLE) carried it inside
  const bundleBytes = launcherBytes + (await stat(bundleFileOf(bundlePath)).then((s) => s.size, () => 0));
  tempRoot = await mkdtemp(join(tmpdir(), 'relay-bench-'));

  // ---- the panel under load
  log('seeding and starting the panel');
  const seeded = await seed(join(tempRoot, 'panel'));
  const panel = startNode([...PANEL_FLAGS, bundlePath, '--config', seeded.configPath], {
    env: { NODE_ENV: 'production' },
    cwd: join(tempRoot, 'panel'),
    name: 'panel',
  });
  await panel.ready;
  const rssAtStart = memory(panel.pid).rss;

  // ---- the raw ceiling, serving the panel's own bytes
  // Read on raw sockets until close: the bytes the panel really writes, whatever its content-length says.
  const healthBytes = await probe(`${panel.url}/api/health`);
  const tunnelBytes = await probe(`${panel.url}/api/tunnels`, { headers: adminHeaders() });
  if (healthBytes.status !== 200) throw new Error(`GET /api/health: ${healthBytes.status} ${healthBytes.text}`);
  if (tunnelBytes.status !== 200) throw new Error(`GET /api/tunnels as admin: ${tunnelBytes.status} ${tunnelBytes.text}`);
  const listed = tunnelBytes.json()?.tunnels?.length;
  if (listed !== COUNTS.tunnels) throw new Error(`GET /api/tunnels listed ${listed} tunnels, seeded ${COUNTS.tunnels}`);
  await writeFile(join(tempRoot, 'health.json'), healthBytes.body);
  await writeFile(join(tempRoot, 'tunnels.json'), tunnelBytes.body);
  const rawArgs = [
    fileURLToPath(new URL('./raw-server.mjs', import.meta.url)),
    `/api/health=${join(tempRoot, 'health.json')}`,
    `/api/tunnels=${join(tempRoot, 'tunnels.json')}`,
  ];
  const raw = startNode(rawArgs, { env: { NODE_ENV: 'production' }, name: 'raw server' });
  await raw.ready;

  // ---- endpoints: [name, who, target, expected status, baseline raw endpoint]
  const endpoints = [
    { key: 'raw-health', name: 'raw node:http /api/health', who: '–', server: raw, method: 'GET', path: '/api/health', headers: {}, expect: 200 },
    { key: 'raw-tunnels', name: 'raw node:http /api/tunnels', who: '–', server: raw, method: 'GET', path: '/api/tunnels', headers: {}, expect: 200 },
    { key: 'health', name: 'GET /api/health', who: 'none', server: panel, method: 'GET', path: '/api/health', headers: {}, expect: 200, baseline: 'raw-health' },
    { key: 'tunnels', name: 'GET /api/tunnels', who: 'admin', server: panel, method: 'GET', path: '/api/tunnels', headers: adminHeaders(), expect: 200, baseline: 'raw-tunnels' },
    { key: 'inbox', name: 'GET /api/tickets/inbox', who: agentLabel(INBOX_AGENT), server: panel, method: 'GET', path: '/api/tickets/inbox', headers: agentHeaders(INBOX_AGENT), expect: 200, baseline: 'raw-health' },
    {
      key: 'tunnel-invalid',
      name: 'POST /api/tunnels (invalid body)',
      who: 'admin',
      server: panel,
      method: 'POST',
      path: '/api/tunnels',
      headers: adminHeaders(),
      body: { subdomain: 'Not A Valid Name!', port: 'eighty', description: 42 },
      expect: 400,
      baseline: 'raw-health',
    },
    { key: 'sites', name: 'GET /api/sites', who: 'admin', server: panel, method: 'GET', path: '/api/sites', headers: adminHeaders(), expect: 200, baseline: 'raw-tunnels' },
    { key: 'stats', name: 'GET /api/system/stats', who: 'admin', server: panel, method: 'GET', path: '/api/system/stats', headers: adminHeaders(), expect: 200, baseline: 'raw-health' },
    { key: 'ticket-round-trip', name: 'ticket round trip (POST /api/tickets + POST /api/tickets/validate)', who: `${agentLabel(0)}…${agentLabel(COUNTS.agents - 1)}`, server: panel, roundTrip: true, expect: 201, baseline: 'raw-health' },
  ];

  const results = [];
  for (const e of endpoints) {
    checkInterrupted();
    const entry = { key: e.key, name: e.name, who: e.who, method: e.method, path: e.path, expectedStatus: e.expect, baseline: e.baseline, measured: false, notes: [] };
    results.push(entry);
    // Probe once: a route that is not there yet is reported, not measured.
    if (e.roundTrip) {
      // One real round trip (agent 1 -> agent 2: one ticket request of agent 1's budget).
      const trial = await roundTrips(panel, seeded.instances, 1, 1);
      entry.probe = { statuses: trial.statuses, failures: trial.failures };
      if (trial.completed !== 1) {
        const missing = await send(`${panel.url}/api/tickets`, { method: 'POST', headers: agentHeaders(0), body: {} }).then(isRouteMissing);
        const validateMissing = await send(`${panel.url}/api/tickets/validate`, { method: 'POST', headers: agentHeaders(1), body: {} }).then(isRouteMissing);
        entry.skipped =
          missing || validateMissing
            ? `route missing: ${[missing && 'POST /api/tickets', validateMissing && 'POST /api/tickets/validate'].filter(Boolean).join(', ')}`
            : `probe failed: ${trial.failures.join('; ').slice(0, 300)}`;
      }
    } else {
      const answer = await probe(`${e.server.url}${e.path}`, { method: e.method, headers: e.headers, body: e.body });
      entry.probe = { status: answer.status, headers: answer.headers, bodyBytes: answer.body.length, body: answer.text.slice(0, 300), framingProblem: answer.framingProblem };
      if (isRouteMissing(answer)) entry.skipped = 'route missing';
      else if (answer.status !== e.expect) entry.skipped = `probe answered ${answer.status}, expected ${e.expect}: ${answer.text.slice(0, 120)}`;
      else if (answer.framingProblem) entry.skipped = `broken response: ${answer.framingProblem}`;
      else entry.responseBytes = answer.body.length;
    }
    if (entry.skipped) {
      log(`${e.name}: n/a (${entry.skipped})`);
      continue;
    }
    log(`${e.name}: warm-up ${e.roundTrip ? `${settings.roundTrip.warmup} round trips` : `${settings.warmupSeconds} s`}, ${settings.runs} measured runs`);
    entry.runs = e.roundTrip
      ? await measureRoundTrip(panel, seeded.instances)
      : await measureLoad({ url: `${e.server.url}${e.path}`, method: e.method, headers: e.headers, body: e.body }, e.server.pid);
    entry.measured = true;
    entry.aggregate = aggregate(entry.runs);
    const codes = {};
    for (const run of entry.runs) for (const [code, n] of Object.entries(run.statusCodes)) codes[code] = (codes[code] ?? 0) + n;
    entry.statusCodes = codes;
    entry.statusSummary = e.roundTrip ? '201 + 200' : Object.keys(codes).join(', ') || '–';
    const unexpected = Object.entries(codes).filter(([code]) => (e.roundTrip ? !/ (200|201)$/.test(code) : Number(code) !== e.expect));
    if (unexpected.length) entry.notes.push(`unexpected statuses: ${unexpected.map(([c, n]) => `${c} ×${n}`).join(', ')}`);
    const errors = entry.runs.reduce((a, r) => a + (r.errors ?? 0) + (r.timeouts ?? 0), 0);
    if (errors) entry.notes.push(`${errors} errors/timeouts`);
    if (e.roundTrip) {
      const sum = (f) => entry.runs.reduce((acc, r) => acc + f(r), 0);
      const ag = entry.aggregate;
      ag.cpuUsPerReqTicks = ag.cpuUsPerReq;
      ag.cpuNs = sum((r) => r.cpuNs);
      ag.cpuUsPerReq = ag.cpuNs / 1000 / ag.requests;
      ag.cpuUsPerRoundTrip = ag.cpuNs / 1000 / sum((r) => r.roundTrips);
      ag.roundTripsPerSec = sum((r) => r.roundTrips) / sum((r) => r.elapsedS);
      entry.notes.push(
        `${entry.runs.map((r) => r.roundTrips).join(' + ')} round trips, ${settings.roundTrip.concurrency} at a time (a load run is impossible under the 10 tickets/agent/minute limit): ` +
          `${ag.roundTripsPerSec.toFixed(0)} round trips/s, ${ag.cpuUsPerRoundTrip.toFixed(0)} CPU µs per round trip. ` +
          `These runs last only ${sum((r) => r.elapsedS).toFixed(2)} s (${ag.cpuTicks} clock ticks of /proc/<pid>/stat, ${ag.cpuUsPerReqTicks.toFixed(0)} µs/req by ticks), ` +
          'so its CPU figure comes from the nanosecond counters of /proc/<pid>/task/*/schedstat instead.',
      );
    }
  }

  // ---- ratios to the raw server
  const byKey = Object.fromEntries(results.map((r) => [r.key, r]));
  for (const r of results) {
    const base = r.baseline && byKey[r.baseline];
    if (!r.measured || !base?.measured) continue;
    r.aggregate.reqPerSecVsRaw = r.aggregate.reqPerSec / base.aggregate.reqPerSec;
    r.aggregate.cpuVsRaw = r.aggregate.cpuUsPerReq / base.aggregate.cpuUsPerReq;
    r.baselineLabel = r.baseline === 'raw-health' ? 'raw health' : 'raw tunnels';
  }

  // ---- health while portal users are hashed (bcrypt cost 12 on the worker thread)
  checkInterrupted();
  log('GET /api/health while 4 user creates run');
  const hashing = await healthWhileHashing(panel, { creates: 4 });
  log(`health p99 ${hashing.during.p99Ms.toFixed(1)} ms during the creates (${hashing.idle.p99Ms.toFixed(1)} ms idle); creates ${hashing.createMs.map((m) => m.toFixed(0)).join(', ')} ms`);

  // ---- one 50 MB site upload
  checkInterrupted();
  log('a 50 MB site upload');
  const upload = await measureUpload(panel).catch((error) => ({ error: error.message }));

  const finalMemory = memory(panel.pid);
  const rawMemory = memory(raw.pid);
  log('stopping the panel and the raw server');
  await stopChild(panel);
  await stopChild(raw);

  // ---- 50 log viewers on a panel driving the fake journalctl
  const logViewers = await measureLogViewers({ dir: join(tempRoot, 'log-viewers'), bundlePath, log }).catch((error) => ({ error: error.message }));
  // ---- metrics on and off
  const metricsOverhead = await measureMetricsOverhead({ dir: join(tempRoot, 'metrics'), bundlePath, measureLoad, log }).catch((error) => ({ error: error.message }));
  // ---- heavy traffic through one tunnel vhost and the API
  checkInterrupted();
  const traffic = await measureTraffic().catch((error) => ({ error: error.message }));
  const runtimes = await measureKitRuntimes().catch((error) => ({ requests: settings.runtimeRequests, rows: [], error: error.message }));
  // ---- the tunnels page with 1,000 tunnels in Chromium
  const panelLists = await measureLists().catch((error) => ({ error: error.message }));
  // ---- write path growth
  const writeBundle = join(tempRoot, 'write-path-server.mjs');
  await bundle({ entry: fileURLToPath(new URL('./write-path-server.ts', import.meta.url)), outfile: writeBundle, quiet: true });
  const writePath = await measureWritePath(writeBundle);

  // ---- cold start, after the load (the HTTP client of this process is warm by now)
  const cold = await measureColdStarts({ workDir: tempRoot, panelArgs, count: settings.coldStarts, checkInterrupted });
  log(describeColdStarts(cold));

  // ---- targets of the issue
  const fmtVs = (r, base) =>
    r?.measured && base?.measured
      ? `${(r.aggregate.cpuUsPerReq / base.aggregate.cpuUsPerReq).toFixed(2)}× (${r.aggregate.cpuUsPerReq.toFixed(1)} vs ${base.aggregate.cpuUsPerReq.toFixed(1)} µs)`
      : `n/a (${r?.skipped ?? base?.skipped ?? 'not measured'})`;
  const within = (r, base, limit) => (r?.measured && base?.measured ? r.aggregate.cpuUsPerReq / base.aggregate.cpuUsPerReq <= limit : null);
  const MiB = 1024 * 1024;
  const panelLoad = await panelFirstLoad(resolve(root, 'dist/panel'));
  const targets = [
    { figure: '/api/health CPU µs/req', target: '≤ 1.3× the raw server\'s', measured: fmtVs(byKey.health, byKey['raw-health']), met: within(byKey.health, byKey['raw-health'], 1.3) },
    { figure: 'GET /api/tunnels (200) CPU µs/req', target: '≤ 1.3× raw (cached serialization)', measured: fmtVs(byKey.tunnels, byKey['raw-tunnels']), met: within(byKey.tunnels, byKey['raw-tunnels'], 1.3) },
    { figure: 'GET /api/tickets/inbox CPU µs/req', target: '≤ 2× the raw server\'s /api/health', measured: fmtVs(byKey.inbox, byKey['raw-health']), met: within(byKey.inbox, byKey['raw-health'], 2) },
    coldStartTarget(cold),
    {
      figure: 'GET /api/health p99 while 4 user creates run',
      target: '< 50 ms',
      measured: `${hashing.during.p99Ms.toFixed(1)} ms over ${hashing.during.samples} requests (idle: ${hashing.idle.p99Ms.toFixed(1)} ms); creates answered in ${hashing.createMs.map((m) => m.toFixed(0)).join(', ')} ms, statuses ${JSON.stringify(hashing.statuses)}`,
      met: hashing.during.p99Ms < 50 && hashing.statuses[201] === hashing.creates,
    },
    statsTarget(byKey),
    sitesTarget(byKey),
    uploadTarget(upload),
    logViewersTarget(logViewers),
    metricsTarget(metricsOverhead),
    ...trafficTargets(traffic, settings.traffic.rate),
    ...writePathTargets(writePath),
    { figure: 'RSS after the whole run', target: '≤ 120 MiB', measured: `${(finalMemory.rss / MiB).toFixed(1)} MiB (peak ${(finalMemory.hwm / MiB).toFixed(1)} MiB)`, met: finalMemory.rss <= 120 * MiB },
    { figure: 'panel client first load', target: '≤ 100 KiB compressed', measured: describePanelLoad(panelLoad), met: panelLoad.gzip <= panelLoad.budget },
    ...panelListsTargets(panelLists),
  ];

  const stamp = startedAt.toISOString().replace(/[:.]/g, '-');
  const outDir = resolve(root, settings.outDir);
  await mkdir(outDir, { recursive: true });
  const jsonFile = join(outDir, `bench-${stamp}.json`);
  const result = {
    date: startedAt.toISOString(),
    jsonFile: relative(root, jsonFile),
    settings: {
      ...settings,
      nodeVersion: process.version,
      platform: `${process.platform} ${process.arch}`,
      cpuModel: cpuModel(),
      cpuCount: cpus().length,
      totalMemory: totalmem(),
      clkTck: clkTck(),
      autocannonVersion,
      systemDriver: 'sandbox',
      nodeEnv: 'production',
      ticketRateLimitPerAgentPerMinute: TICKET_RATE_LIMIT,
      /** 1/5/15-minute load averages: other work on the machine makes every figure noisier */
      loadAverageBefore: loadBefore.map((l) => Number(l.toFixed(2))),
      loadAverageAfter: loadavg().map((l) => Number(l.toFixed(2))),
    },
    seed: { counts: seeded.counts, inboxUnusedTickets: seeded.inboxUnusedTickets, domain: DOMAIN, onboarding: 'COMPLETED' },
    bundle: { file: relative(root, bundlePath), bytes: bundleBytes },
    coldStart: cold,
    writePath,
    memory: { panelAtStart: rssAtStart, panelAfterRun: finalMemory.rss, panelPeak: finalMemory.hwm, rawAfterRun: rawMemory.rss },
    endpoints: results,
    healthWhileHashing: hashing,
    logViewers,
    metricsOverhead,
    traffic,
    runtimes,
    panelFirstLoad: panelLoad,
    panelLists,
    siteUpload: upload,
    targets,
  };
  await writeFile(jsonFile, JSON.stringify(result, null, 2) + '\n');
  console.log(renderMarkdown(result));
}

/** The cold starts alone: the same measurement as in the full run, printed as one line and the target row. */
async function coldStartOnly() {
  tempRoot = await mkdtemp(join(tmpdir(), 'relay-bench-'));
  const loadBefore = loadavg();
  const cold = await measureColdStarts({ workDir: tempRoot, panelArgs, count: settings.coldStarts, checkInterrupted });
  log(`${describeColdStarts(cold)}; load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')} before, ${loadavg().map((l) => l.toFixed(2)).join(' ')} after`);
  const target = coldStartTarget(cold);
  console.log(`${target.figure}: ${target.measured}, target ${target.target}: ${target.met ? 'met' : 'not met'}`);
}

/** The traffic section on its own panel (test/bench/traffic.mjs). */
function measureTraffic() {
  const { rate, apiRate } = settings.traffic;
  return measureTrafficIsolation({ dir: join(tempRoot, 'traffic'), panelArgs, rate, apiRate, warmupSeconds: settings.warmupSeconds, durationSeconds: settings.durationSeconds, log });
}

/** The tunnel traffic alone: its section of the report and its target rows; fails when nothing was counted. */
async function trafficOnly() {
  tempRoot = await mkdtemp(join(tmpdir(), 'relay-bench-'));
  // the receiver's CPU per line at 1,000 and 10,000 lines/s, before the batching receiver and this tree's
  await measureTrafficReceiver({ log });
  const traffic = await measureTraffic();
  console.log(renderTraffic(traffic));
  for (const t of trafficTargets(traffic, settings.traffic.rate)) console.log(`- ${t.figure}: ${t.measured}; target ${t.target}: ${t.met ? 'met' : 'not met'}`);
}

/** The kit app's cost in Node, Bun, Deno and workerd (test/bench/runtimes.mjs). */
async function measureKitRuntimes() {
  const dir = join(tempRoot, 'runtimes');
  await mkdir(dir, { recursive: true });
  return measureRuntimes({ dir, requests: settings.runtimeRequests, log });
}

/** The runtimes section alone; fails when a runtime did not answer. */
async function runtimesOnly() {
  tempRoot = await mkdtemp(join(tmpdir(), 'relay-bench-'));
  const runtimes = await measureKitRuntimes();
  console.log(renderRuntimes(runtimes));
  const failed = runtimes.rows.filter((row) => row.error);
  if (failed.length) throw new Error(`no figures from ${failed.map((row) => row.runtime).join(', ')}`);
}

/** The tunnels page with 1,000 tunnels in Chromium (test/bench/panel-lists.mjs). */
function measureLists() {
  return measurePanelLists({ dir: join(tempRoot, 'panel-lists'), panelArgs, root, log });
}

/** The panel's long-list figures alone; fails when they could not be measured. */
async function panelListsOnly() {
  tempRoot = await mkdtemp(join(tmpdir(), 'relay-bench-'));
  const lists = await measureLists();
  console.log(describePanelLists(lists));
  for (const t of panelListsTargets(lists)) console.log(`- ${t.figure}: ${t.measured}; target ${t.target}${t.met === null ? '' : `: ${t.met ? 'met' : 'not met'}`}`);
}

/** Agent-config and the tunnel status from memory, beside the baseline bundle when given. */
async function cachedAnswersOnly() {
  tempRoot = await mkdtemp(join(tmpdir(), 'relay-bench-'));
  const baselineBundle = settings.baselineBundle ? resolve(root, settings.baselineBundle) : undefined;
  const r = await measureCachedAnswers({ dir: tempRoot, bundlePath, baselineBundle, flags: PANEL_FLAGS, runs: settings.runs + 1, seconds: settings.durationSeconds, warmupSeconds: settings.warmupSeconds, log });
  console.log(describeCachedAnswers(r));
}

/** The box of 1,000 tunnels beside the box of 10 (test/bench/scale.mjs); the boxes are kept in the bench's out dir. */
async function scaleOnly() {
  const r = await measureScale({ cacheDir: resolve(root, settings.outDir, 'scale-boxes'), panelArgs, runs: settings.runs + 1, seconds: settings.durationSeconds, log });
  console.log(describeScale(r));
}

/**
 * A bench part in a TypeScript script of its own, run with the test hooks; its report as it prints it:
 * upload-hostile.ts (50 MB hostile multipart bodies), nginx-changes.ts (ten concurrent vhost changes
 * at 1,000 vhosts), tunnel-changes.ts (a tunnel's create, toggle and delete with its certificate in
 * place at 10 and 1,000 vhosts, per-name and wildcard), stream.ts (nginx's stream proxy against direct loopback).
 */
async function runScript(name) {
  const script = fileURLToPath(new URL(`./${name}`, import.meta.url));
  const register = fileURLToPath(new URL('../helpers/register.mjs', import.meta.url));
  const { stdout } = await promisify(execFile)(process.execPath, ['--no-warnings', '--import', register, script], { maxBuffer: 1 << 20 });
  console.log(stdout.trimEnd());
}

/** The route-table fuzz, long; fails when it finds something. */
async function fuzzOnly() {
  const ms = await runLongFuzz({ ...settings.fuzz, log });
  console.log(`route-table fuzz: ${settings.fuzz.runs} requests per route passed in ${(ms / 1000).toFixed(1)} s`);
}

let exitCode = 0;
try {
  await (ONLY[settings.only] ?? main)();
} catch (error) {
  exitCode = 1;
  console.error(interrupted ? 'bench: interrupted' : `bench: ${error.stack ?? error.message}`);
} finally {
  await cleanup();
}
if (!interrupted) process.exit(exitCode);
