// A tunnel with heavy traffic must not slow the panel's API. A seeded panel with its
// traffic log on (system.nginx.trafficPort), a throwaway nginx carrying one tunnel's traffic log
// lines as the panel renders them (traffic-nginx.mjs) in front of a loopback server playing the
// tunnel's client, and BENCH_TRAFFIC_RATE requests a second through it (traffic-load.mjs, a child).
// The API is loaded lightly at a fixed rate (paced.mjs) with the traffic off, on, and on but
// unlogged (the same requests through nginx on a server without the traffic log: the machine's
// load without the panel's part), in the order off, on, unlogged, unlogged, on, off so drift of the
// machine hits all alike; its latency and the panel's CPU are compared, and the meter's count
// checked against what was sent. Without nginx, the datagrams nginx would send go straight to the
// panel's port and there is no unlogged phase (said so in the report).
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { send } from './http.mjs';
import { pacedRequests, percentile } from './paced.mjs';
import { freeTcpPorts, freeUdpPort } from './ports.mjs';
import { cpuNs, startNode, stopChild } from './proc.mjs';
import { adminHeaders, seed } from './seed.mjs';
import { NGINX, nginxInstalled, renderedTrafficLines, startTrafficNginx } from './traffic-nginx.mjs';

/** The API's p99 with the traffic logged may be this many times its p99 with the same traffic unlogged. */
export const API_P99_LIMIT = 1.5;
/** The meter must count this share of the requests sent (UDP on loopback may drop under load). */
export const COUNTED_SHARE = 0.99;
/** svc-2 of the seed: an enabled tunnel */
const TUNNEL_INDEX = 1;
/** traffic flows this long before a phase's measured window opens */
const RAMP_S = 1;
/** after the load stops, the datagrams still in the socket's buffer */
const DRAIN_MS = 300;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const sum = (list, f) => list.reduce((a, x) => a + f(x), 0);

/** The tunnel's client: the bench's raw server answering its traffic with a small JSON body. */
async function startTunnelClient(dir) {
  await mkdir(dir, { recursive: true });
  const body = join(dir, 'tunnel-client.json');
  await writeFile(body, JSON.stringify({ app: 'the tunnel\'s client', note: 'x'.repeat(200) }));
  const client = startNode([fileURLToPath(new URL('./raw-server.mjs', import.meta.url)), `/=${body}`], { name: 'tunnel client' });
  return client.ready;
}

/** The bench's seed with the traffic log on and one tunnel pointed at its client's port. */
async function startPanel(dir, panelArgs, { trafficPort, tunnelPort }) {
  const seeded = await seed(dir);
  const config = JSON.parse(await readFile(seeded.configPath, 'utf8'));
  config.system = { ...config.system, nginx: { trafficPort } };
  await writeFile(seeded.configPath, JSON.stringify(config), { mode: 0o600 });
  const tunnelsFile = join(seeded.dataDir, 'tunnels.json');
  const tunnels = JSON.parse(await readFile(tunnelsFile, 'utf8'));
  const tunnel = tunnels[TUNNEL_INDEX];
  tunnel.port = tunnelPort;
  await writeFile(tunnelsFile, JSON.stringify(tunnels), { mode: 0o600 });
  const panel = startNode([...panelArgs, '--config', seeded.configPath], { env: { NODE_ENV: 'production' }, cwd: dir, name: 'panel (traffic log on)' });
  await panel.ready;
  return { panel, tunnel };
}

/** The meter's total for `vhost` since the panel started (GET /metrics, relay_vhost_requests_total). */
async function countedLines(panel, vhost) {
  const scrape = await send(`${panel.url}/metrics`, { headers: adminHeaders() });
  if (scrape.status !== 200) throw new Error(`GET /metrics: ${scrape.status} ${scrape.text.slice(0, 200)}`);
  const line = scrape.text.split('\n').find((l) => l.startsWith(`relay_vhost_requests_total{vhost="${vhost}"}`));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

/** The tunnel's row of GET /api/tunnels/status. */
async function tunnelStatus(panel, subdomain) {
  const answer = await send(`${panel.url}/api/tunnels/status`, { headers: adminHeaders() });
  if (answer.status !== 200) throw new Error(`GET /api/tunnels/status: ${answer.status} ${answer.text.slice(0, 200)}`);
  return answer.json().tunnels.find((t) => t.subdomain === subdomain);
}

/** Starts the traffic child; `result()` waits for its end and its `result {json}` line. */
async function startTraffic(target, rate, seconds, vhost) {
  const child = startNode([fileURLToPath(new URL('./traffic-load.mjs', import.meta.url)), target, String(rate), String(seconds), vhost], {
    name: 'traffic load',
    readyPattern: /traffic load started/,
  });
  await child.ready;
  return {
    stop: () => stopChild(child),
    async result() {
      const { code } = await child.exited;
      const line = /result (\{.*\})/.exec(child.output);
      if (code !== 0 || !line) throw new Error(`traffic load ended with code ${code}: ${child.output.trim().slice(-500)}`);
      return JSON.parse(line[1]);
    },
  };
}

/**
 * One phase of `kind` (off, on, unlogged): the API's paced load for `seconds` (the measured
 * window), with the traffic flowing from RAMP_S before the window to just after it, or none.
 */
async function measurePhase(run, kind, seconds) {
  const { panel, vhost } = run;
  const countedBefore = await countedLines(panel, vhost);
  const target = run.trafficTargets[kind];
  const traffic = target ? await startTraffic(target, run.rate, RAMP_S + seconds + 0.5, vhost) : null;
  run.stopTraffic = traffic?.stop;
  if (traffic) await sleep(RAMP_S * 1000);
  const windowBefore = traffic ? await countedLines(panel, vhost) : countedBefore;
  const nsBefore = cpuNs(panel.pid);
  const api = await pacedRequests(run.targets, { ratePerSec: run.apiRate, seconds });
  const ns = cpuNs(panel.pid) - nsBefore;
  const windowLines = (await countedLines(panel, vhost)) - windowBefore;
  const sent = traffic ? await traffic.result() : { sent: 0, failed: 0, statuses: {} };
  run.stopTraffic = undefined;
  if (traffic) await sleep(DRAIN_MS);
  return {
    kind,
    seconds: api.elapsedS,
    cpuNs: ns,
    windowLines,
    sent: sent.sent,
    failed: sent.failed,
    statuses: sent.statuses,
    counted: (await countedLines(panel, vhost)) - countedBefore,
    api: api.byKey,
  };
}

/** Both phases of a kind together: CPU over their seconds, latency percentiles over their samples. */
function condition(phases, targets) {
  const seconds = sum(phases, (p) => p.seconds);
  const ns = sum(phases, (p) => p.cpuNs);
  const endpoints = Object.fromEntries(
    targets.map((t) => {
      const latencies = phases.flatMap((p) => p.api[t.key].latencies).sort((a, b) => a - b);
      const unexpected = phases.flatMap((p) => p.api[t.key].unexpected);
      return [t.key, { name: t.name, samples: latencies.length, p50Ms: percentile(latencies, 50), p99Ms: percentile(latencies, 99), unexpected: unexpected.length, firstUnexpected: unexpected[0] }];
    }),
  );
  return {
    seconds,
    cpuNs: ns,
    cpuPercent: (ns / 1e9 / seconds) * 100,
    linesPerSec: sum(phases, (p) => p.windowLines) / seconds,
    sent: sum(phases, (p) => p.sent),
    counted: sum(phases, (p) => p.counted),
    failed: sum(phases, (p) => p.failed),
    endpoints,
  };
}

/** A phase as kept in the JSON: its figures without the raw latencies. */
const phaseRecord = (p, targets) => ({
  ...p,
  cpuPercent: (p.cpuNs / 1e9 / p.seconds) * 100,
  api: Object.fromEntries(targets.map((t) => [t.key, { p50Ms: percentile(p.api[t.key].latencies, 50), p99Ms: percentile(p.api[t.key].latencies, 99), samples: p.api[t.key].latencies.length }])),
});

async function nginxVersion() {
  const { stderr } = await promisify(execFile)(NGINX, ['-v']);
  return stderr.trim().replace(/^nginx version: /, '');
}

/**
 * The whole section: `rate` traffic requests a second, the API at `apiRate` (GET /api/tunnels/status
 * and GET /api/tunnels in turn), a warm-up with traffic, then phases of `durationSeconds`.
 */
export async function measureTrafficIsolation({ dir, panelArgs, rate, apiRate, warmupSeconds, durationSeconds, log }) {
  const stops = [];
  const run = { rate, apiRate };
  // other work on the machine moves every figure here: it is reported beside them
  const loadBefore = loadavg();
  try {
    const client = await startTunnelClient(dir);
    stops.push(() => stopChild(client));
    const trafficPort = await freeUdpPort();
    const { panel, tunnel } = await startPanel(join(dir, 'panel'), panelArgs, { trafficPort, tunnelPort: client.port });
    stops.push(() => stopChild(panel));
    run.panel = panel;
    run.vhost = `app:${tunnel.fqdn}`;
    run.targets = [
      { key: 'status', name: 'GET /api/tunnels/status', url: `${panel.url}/api/tunnels/status`, headers: adminHeaders(), expect: 200 },
      { key: 'tunnels', name: 'GET /api/tunnels', url: `${panel.url}/api/tunnels`, headers: adminHeaders(), expect: 200 },
    ];
    const withNginx = await nginxInstalled();
    let mode;
    if (withNginx) {
      const lines = await renderedTrafficLines(dir, { fqdn: tunnel.fqdn, tunnelPort: client.port, trafficPort });
      const [port, unloggedPort] = await freeTcpPorts(2);
      const nginx = await startTrafficNginx(join(dir, 'nginx'), { port, unloggedPort, fqdn: tunnel.fqdn, upstreamPort: client.port, lines });
      stops.push(nginx.stop);
      run.trafficTargets = { on: `${nginx.url}/`, unlogged: `${nginx.unloggedUrl}/` };
      mode = { kind: 'nginx', nginx: await nginxVersion(), format: lines.format, access: lines.access };
    } else {
      run.trafficTargets = { on: `udp://127.0.0.1:${trafficPort}` };
      mode = { kind: 'datagrams', note: `${NGINX} not installed: the syslog datagrams nginx would send, straight to the panel's port` };
    }
    const connected = (await tunnelStatus(panel, tunnel.subdomain))?.connected;
    log(`traffic: ${rate} req/s ${withNginx ? `through ${mode.nginx} to ${run.vhost}` : 'as datagrams (no nginx)'}; the API at ${apiRate} req/s; tunnel connected: ${connected}`);

    const firstTrafficAt = Date.now();
    const warmup = await measurePhase(run, 'on', warmupSeconds);
    if (warmup.counted === 0) {
      throw new Error(
        `the panel's traffic meter counted none of the ${warmup.sent} requests sent to ${run.vhost} ` +
          `(answers ${JSON.stringify(warmup.statuses)}, ${warmup.failed} failed): is the access_log reaching udp 127.0.0.1:${trafficPort}? ` +
          `${withNginx ? `see ${join(dir, 'nginx/logs/error.log')}; ` : ''}panel output: ${panel.output.trim().slice(-300)}`,
      );
    }
    const phases = [];
    const order = withNginx ? ['off', 'on', 'unlogged', 'unlogged', 'on', 'off'] : ['off', 'on', 'on', 'off'];
    for (const kind of order) {
      log(`traffic ${kind}: ${durationSeconds} s`);
      phases.push(await measurePhase(run, kind, durationSeconds));
    }
    // every logged line went to the same tunnel within the last minute or two: the status shows them
    const status = await tunnelStatus(panel, tunnel.subdomain);
    const sentInAll = warmup.sent + sum(phases.filter((p) => p.kind === 'on'), (p) => p.sent);
    if (!status?.traffic.lastMinute.requests) throw new Error(`GET /api/tunnels/status shows no requests for ${tunnel.subdomain} after ${sentInAll} were sent`);

    const [on, off, unlogged] = ['on', 'off', 'unlogged'].map((kind) => {
      const of = phases.filter((p) => p.kind === kind);
      return of.length ? condition(of, run.targets) : null;
    });
    const p99Over = (base) => base && Object.fromEntries(run.targets.map((t) => [t.key, on.endpoints[t.key].p99Ms / base.endpoints[t.key].p99Ms]));
    const result = {
      mode,
      rate,
      apiRate,
      durationSeconds,
      warmupSeconds,
      vhost: run.vhost,
      tunnelConnected: connected,
      on,
      off,
      unlogged,
      p99Ratio: p99Over(off),
      /** the panel's part: the same traffic, heard or not */
      p99RatioUnlogged: p99Over(unlogged),
      p50Ratio: Object.fromEntries(run.targets.map((t) => [t.key, on.endpoints[t.key].p50Ms / off.endpoints[t.key].p50Ms])),
      cpuRatio: on.cpuPercent / off.cpuPercent,
      // the CPU the traffic added, over the lines the meter took in the same windows
      cpuUsPerLine: ((on.cpuNs / on.seconds - off.cpuNs / off.seconds) / 1000) / on.linesPerSec,
      countedShare: on.counted / on.sent,
      warmup: { sent: warmup.sent, counted: warmup.counted },
      statusLastMinute: { requests: status.traffic.lastMinute.requests, sentSinceFirst: sentInAll, secondsSinceFirst: (Date.now() - firstTrafficAt) / 1000 },
      phases: phases.map((p) => phaseRecord(p, run.targets)),
      loadAverage: { before: loadBefore.map((l) => Number(l.toFixed(2))), after: loadavg().map((l) => Number(l.toFixed(2))) },
    };
    log(describeTraffic(result));
    return result;
  } finally {
    await run.stopTraffic?.();
    for (const stop of stops.reverse()) await stop();
  }
}

const ms = (v) => `${v.toFixed(2)} ms`;
const p99Vs = (r, key, base, ratios) => `${r.on.endpoints[key].name} ${ratios[key].toFixed(2)}× (${ms(r.on.endpoints[key].p99Ms)} vs ${ms(base.endpoints[key].p99Ms)})`;
const p99Line = (r, base, ratios) => Object.keys(ratios).map((key) => p99Vs(r, key, base, ratios)).join(', ');

/** One line of the figures, for the log. */
export function describeTraffic(r) {
  return (
    `traffic: ${r.on.linesPerSec.toFixed(0)} lines/s counted; p99 on/off: ${p99Line(r, r.off, r.p99Ratio)}` +
    `${r.unlogged ? `; on/unlogged: ${p99Line(r, r.unlogged, r.p99RatioUnlogged)}` : ''}; ` +
    `panel CPU ${r.on.cpuPercent.toFixed(1)} % vs ${r.off.cpuPercent.toFixed(1)} % (${r.cpuRatio.toFixed(2)}×), ${r.cpuUsPerLine.toFixed(1)} µs per line; ` +
    `counted ${r.on.counted} of ${r.on.sent} sent (${(r.countedShare * 100).toFixed(2)} %)`
  );
}

/**
 * Its lines in the bench's table of targets. The p99 target is judged on the panel's part (the
 * same traffic unlogged as the base: nginx, the load and the tunnel's client load the machine
 * either way); without nginx, on the traffic against none.
 */
export function trafficTargets(r, rate) {
  const figure = `API p99 with ${rate.toLocaleString('en-US')} req/s through one tunnel vhost`;
  const target = `≤ ${API_P99_LIMIT}× the same traffic unlogged`;
  const counting = 'traffic counted, panel CPU per line';
  const countingTarget = `≥ ${COUNTED_SHARE * 100} % counted; CPU reported`;
  if (r.error) {
    return [
      { figure, target, measured: `n/a (${r.error})`, met: null },
      { figure: counting, target: countingTarget, measured: 'n/a', met: null },
    ];
  }
  const judged = r.p99RatioUnlogged ?? r.p99Ratio;
  return [
    {
      figure,
      target,
      measured:
        (r.unlogged ? `logged/unlogged: ${p99Line(r, r.unlogged, r.p99RatioUnlogged)}; ` : 'no nginx, datagrams against none: ') +
        `with/without traffic: ${p99Line(r, r.off, r.p99Ratio)}; ${r.apiRate} API req/s`,
      met: Object.values(judged).every((v) => v <= API_P99_LIMIT),
    },
    {
      figure: counting,
      target: countingTarget,
      measured:
        `${(r.countedShare * 100).toFixed(2)} % (${r.on.counted} of ${r.on.sent}); panel CPU ${r.on.cpuPercent.toFixed(1)} % vs ${r.off.cpuPercent.toFixed(1)} % ` +
        `(${r.cpuRatio.toFixed(2)}×), ${r.cpuUsPerLine.toFixed(1)} µs per line`,
      met: r.countedShare >= COUNTED_SHARE,
    },
  ];
}
