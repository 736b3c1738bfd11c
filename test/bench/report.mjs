// Markdown rendering of a benchmark result (the object written to .bench/*.json).
import { describePanelLists } from './panel-lists.mjs';

const MiB = 1024 * 1024;
const num = (v, digits = 0) => (Number.isFinite(v) ? v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : '–');
const ratio = (v) => (Number.isFinite(v) ? `${v.toFixed(2)}×` : '–');
const mib = (bytes) => (Number.isFinite(bytes) ? `${(bytes / MiB).toFixed(1)}` : '–');

function table(header, rows) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...rows.map(line)].join('\n');
}

export function renderMarkdown(result) {
  const s = result.settings;
  const out = [];
  out.push(`## relay-panel bench — ${result.date}`);
  out.push('');
  out.push(
    [
      `- machine: ${s.cpuModel}, ${s.cpuCount} cores, ${(s.totalMemory / 1024 ** 3).toFixed(1)} GiB, ${s.platform}; node ${s.nodeVersion}; CLK_TCK ${s.clkTck}; load average ${s.loadAverageBefore.join(' ')} before, ${s.loadAverageAfter.join(' ')} after`,
      `- load: autocannon ${s.autocannonVersion}, ${s.connections} connections, warm-up ${s.warmupSeconds} s, then ${s.runs} measured runs of ${s.durationSeconds} s per endpoint; load generator and servers share the cores`,
      `- ticket round trip: ${s.roundTrip.warmup} warm-up, then ${s.runs} runs of ${s.roundTrip.perRun} round trips (POST /api/tickets by the source, POST /api/tickets/validate by the target), ${s.roundTrip.concurrency} at a time, sources spread over ${s.roundTrip.sources} agents (≤ ${s.roundTrip.perAgentBudget} ticket requests per agent, under the 10/agent/minute limit)`,
      `- panel: \`node dist/server.mjs --config <tmp>/config.json\`, NODE_ENV=production, ${s.systemDriver} system, requests with the X-SSL-Client-* headers nginx sends`,
      `- seeded: ${Object.entries(result.seed.counts).map(([k, v]) => `${k} ${v}`).join(', ')} (${result.seed.inboxUnusedTickets} unused tickets in the measured agent's inbox); onboarding COMPLETED, domain ${result.seed.domain}`,
      `- bundle: ${result.bundle.file} and the bundle beside it, ${num(result.bundle.bytes / 1024)} KiB`,
      ...(result.panelFirstLoad ? [`- panel client first load: ${num(result.panelFirstLoad.gzip / 1024, 1)} KiB gzip, ${num(result.panelFirstLoad.brotli / 1024, 1)} KiB brotli (${num(result.panelFirstLoad.raw / 1024, 1)} KiB raw, ${result.panelFirstLoad.files.length} files)`] : []),
      `- cold start (spawn → first 200 on /api/health, restarts of a box that ran once, in place; the box's start, the launcher and the raw server alternating): from ${result.coldStart.startedFrom}, median **${num(result.coldStart.medianMs, 1)} ms** of ${result.coldStart.runs.length} (${result.coldStart.runs.map((r) => num(r.firstOkMs, 1)).join(', ')} ms), ${ratio(result.coldStart.ratio)} the raw server's${result.coldStart.launcher ? `; the launcher through its code cache: median ${num(result.coldStart.launcher.medianMs, 1)} ms (${result.coldStart.launcher.runs.map((r) => num(r.firstOkMs, 1)).join(', ')} ms), ${ratio(result.coldStart.launcher.ratio)}` : ''}; the raw node:http server: median ${num(result.coldStart.raw.medianMs, 1)} ms (${result.coldStart.raw.runs.map((r) => num(r.firstOkMs, 1)).join(', ')} ms)`,
    ].join('\n'),
  );
  out.push('');

  const rows = result.endpoints.map((e) => {
    if (!e.measured) return [e.name, e.who, `n/a (${e.skipped})`, '', '', '', '', '', '', ''];
    const a = e.aggregate;
    return [
      e.name,
      e.who,
      e.statusSummary,
      num(a.reqPerSec),
      num(a.p99Ms, 1),
      `**${num(a.cpuUsPerReq, 1)}**`,
      e.runs.map((r) => num(r.cpuUsPerReq, 1)).join(' / '),
      mib(a.rssAfter),
      e.baselineLabel ? `${ratio(a.reqPerSecVsRaw)}` : '',
      e.baselineLabel ? `${ratio(a.cpuVsRaw)} (${e.baselineLabel})` : '',
    ];
  });
  out.push(
    table(['endpoint', 'as', 'status', 'req/s', 'p99 ms', 'CPU µs/req', 'CPU per run', 'RSS after MiB', 'req/s vs raw', 'CPU vs raw'], rows),
  );
  out.push('');
  out.push(
    'req/s and CPU µs/req over both measured runs together; p99 is the higher of the two runs. CPU is the server process\'s utime+stime from /proc/<pid>/stat before and after each run, divided by the requests completed; it does not depend on the load generator sharing the cores. The ticket round trip counts each of its two requests (CPU and req/s per request; p99 of the whole round trip).',
  );
  const notes = result.endpoints.flatMap((e) => e.notes.map((n) => `- ${e.name}: ${n}`));
  if (notes.length) out.push('', ...notes);
  if (result.writePath?.length) {
    out.push('');
    out.push('### Write path: the ticket round trip as the stored tickets grow');
    out.push('');
    out.push(
      table(
        ['stored tickets', 'concurrent', 'round trips/s', 'CPU µs/req', 'p50 ms', 'p99 ms', 'round trips', 'failures'],
        result.writePath.map((r) => [
          `${num(r.storedTickets)} (${num(r.storedAtStart)} → ${num(r.storedAtEnd)})`,
          r.concurrency,
          num(r.roundTripsPerSec),
          `**${num(r.cpuUsPerReq, 1)}**`,
          num(r.p50Ms, 1),
          num(r.p99Ms, 1),
          num(r.roundTrips),
          r.failures.length ? r.failures.join('; ').slice(0, 120) : '0',
        ]),
      ),
    );
    out.push('');
    out.push(
      'Each row on a freshly seeded panel (test/bench/write-path-server.ts: the bundle\'s code with the 1,000-ticket cap and the 10/minute rate limit lifted, which would refuse this load), after a warm-up; every answer comes after its write is synchronized to disk (O_DSYNC). CPU: /proc/<pid>/task/*/schedstat, per request (two per round trip).',
    );
  }
  if (result.traffic) out.push('', renderTraffic(result.traffic));
  if (result.runtimes) out.push('', renderRuntimes(result.runtimes));
  if (result.panelLists && !result.panelLists.error) out.push('', '### The tunnels page with 1,000 tunnels (Chromium)', '', describePanelLists(result.panelLists));
  out.push('');
  out.push('### Against the targets (information, not assertions)');
  out.push('');
  out.push(
    table(
      ['figure', 'target', 'measured', ''],
      result.targets.map((t) => [t.figure, t.target, t.measured, t.met === null ? 'n/a' : t.met ? 'met' : 'missed']),
    ),
  );
  out.push('');
  out.push(`JSON: ${result.jsonFile}`);
  return out.join('\n');
}

/** The heavy-traffic section: the API and the panel's CPU without, with and with unlogged heavy traffic through one tunnel vhost. */
export function renderTraffic(t) {
  const out = ['### Heavy traffic through one tunnel vhost and the API', ''];
  if (t.error) return [...out, `n/a: ${t.error}`].join('\n');
  const endpoints = Object.keys(t.on.endpoints);
  const counted = (c) => (c.sent ? `${num(c.counted)} of ${num(c.sent)}` : '–');
  const phaseRow = (p, i) => [
    `${i + 1}: ${p.kind}`,
    num(p.windowLines / p.seconds),
    ...endpoints.map((k) => `${num(p.api[k].p50Ms, 2)} / ${num(p.api[k].p99Ms, 2)}`),
    num(p.cpuPercent, 1),
    p.kind === 'on' ? counted(p) : '–',
  ];
  const conditionRow = (name, c) => [
    `**${name}**`,
    num(c.linesPerSec),
    ...endpoints.map((k) => `${num(c.endpoints[k].p50Ms, 2)} / **${num(c.endpoints[k].p99Ms, 2)}**`),
    `**${num(c.cpuPercent, 1)}**`,
    name === 'on' ? counted(c) : '–',
  ];
  const ratioRow = (name, base) => [
    `**on / ${name}**`,
    '',
    ...endpoints.map((k) => `${ratio(t.on.endpoints[k].p50Ms / base.endpoints[k].p50Ms)} / **${ratio(t.on.endpoints[k].p99Ms / base.endpoints[k].p99Ms)}**`),
    `**${ratio(t.on.cpuPercent / base.cpuPercent)}**`,
    name === 'off' ? `${num(t.countedShare * 100, 2)} %` : '',
  ];
  const conditions = [['off', t.off], ['on', t.on], ...(t.unlogged ? [['unlogged', t.unlogged]] : [])];
  out.push(
    table(
      ['phase', 'traffic lines/s counted', ...endpoints.map((k) => `${t.on.endpoints[k].name} p50 / p99 ms`), 'panel CPU %', 'counted of sent'],
      [
        ...t.phases.map(phaseRow),
        ...conditions.map(([name, c]) => conditionRow(name, c)),
        ratioRow('off', t.off),
        ...(t.unlogged ? [ratioRow('unlogged', t.unlogged)] : []),
      ],
    ),
  );
  out.push('');
  const how =
    t.mode.kind === 'nginx'
      ? `through ${t.mode.nginx} on loopback to ${t.vhost}, with the vhost's own traffic log lines (\`${t.mode.format.trim()}\` and \`${t.mode.access}\`), in front of a loopback server playing the tunnel's client; ` +
        '*unlogged*: the same requests through a server of the same nginx without the traffic log (the machine as loaded, the panel hearing nothing)'
      : `**without nginx** (${t.mode.note})`;
  out.push(
    `${num(t.rate)} requests/s ${how}, from a child process paced each millisecond; the API meanwhile at ${num(t.apiRate)} requests/s (its two endpoints in turn, paced, keep-alive), ` +
      `after a ${t.warmupSeconds} s warm-up with traffic, in phases of ${t.durationSeconds} s in the order above. ` +
      `Panel CPU: /proc/<pid>/task/*/schedstat over each phase's window. **${num(t.cpuUsPerLine, 1)} µs of panel CPU per traffic line** (the CPU the traffic added, on against off, over the lines counted in the same windows). ` +
      `Counted: relay_vhost_requests_total of /metrics around each phase (the warm-up: ${num(t.warmup.counted)} of ${num(t.warmup.sent)}); GET /api/tunnels/status then showed ${num(t.statusLastMinute.requests)} requests in the last minute ` +
      `(${num(t.statusLastMinute.sentSinceFirst)} logged requests sent over ${num(t.statusLastMinute.secondsSinceFirst)} s, warm-up included). The load generator, nginx, the tunnel's client and the panel share the cores (load average ${t.loadAverage.before.join(' ')} before, ${t.loadAverage.after.join(' ')} after).`,
  );
  return out.join('\n');
}

/** The runtimes section: the kit app in each runtime, measured inside it (test/bench/runtimes.mjs). */
export function renderRuntimes(r) {
  const rows = r.rows.map((row) =>
    row.error
      ? [row.runtime, row.version, '–', `failed: ${row.error}`, '–', '–', '–']
      : [row.runtime, row.version, row.clock, num(row.tunnels, 1), num(row.roundTrip, 1), num(row.roundTrip / 2, 1), num(row.kitStart / 1000, 2)],
  );
  return [
    '### The kit app per runtime',
    '',
    table(['runtime', 'version', 'measured with', 'GET /api/tunnels µs/req', 'ticket round trip µs', 'µs/req of the round trip', 'a kit made and closed, ms'], rows),
    '',
    `In process, inside each runtime: the testing kit's app (memory store, fake PKI, ticket limits lifted), ${num(r.requests)} measured requests of each kind after a quarter as many unmeasured. ` +
      'A round trip is POST /api/tickets by the source and POST /api/tickets/validate by the target; a kit made and closed is `createTestApp()` (memory store) and its `close()`, 20 times after 5. `cpuUsage`: process.cpuUsage() user + system (every thread of the process, the collector too); ' +
      '`performance.now`: wall time around the loop, where process.cpuUsage is not implemented (workerd), so it counts whatever else the machine made the isolate wait for.',
  ].join('\n');
}
