// The panel's CPU per counted traffic line, the receiver and meter alone. For each
// of `base` (lib/traffic as git ref BENCH_TRAFFIC_BASE has it; by default BEFORE_BATCHING, the last
// commit reading one datagram per wake-up and checking lines with zod) and `this` (the
// working tree), a child process runs receiveTraffic + TrafficMeter exactly as the panel does;
// this process sends it the syslog datagrams nginx sends (one per request, paced each millisecond)
// at 1,000 and 10,000 lines a second, and reads the child's CPU (/proc schedstat, nanoseconds) over
// the window, then over a window as long with no lines: each figure raw and net of that idle cost
// (README says which the goal is read against). The idle cost is the median of the quiet window's
// 250 ms slices: right after a load V8's memory reducer runs two or three full collections (~8 ms
// each, and its helper threads) once the allocation rate falls, tens of ms of CPU that belong to
// neither a steady idle panel nor a steady rate; they are reported apart ("after the load").
// The loaded window runs on for the longest wait between turns after the last line is sent, so the
// lines still in the socket's buffer are read (and their CPU counted) in it. The main thread's
// wake-ups per second of sending (its voluntary context switches) are beside each figure.
// Rounds alternate base and this so the machine's drift hits both; medians of 5 and their range;
// the load average is beside each.
// BENCH_TRAFFIC_BUFFER=212992 plays a box with the kernel's default net.core.rmem_max: the child asks that
// buffer instead of 4 MiB (a base before that option ignores it and asks 4 MiB).
// Usage: node test/bench/traffic-receiver.mjs [seconds per phase]   (also `--only=traffic-receiver`).
// measureMeterAtScale: this tree alone, the meter knowing each box size's vhosts (`--only=scale`).
import { execFile, spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { median } from './cold-start.mjs';
import { cpuNs } from './proc.mjs';
import { freeUdpPort } from './ports.mjs';

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const RATES = [1000, 10_000];
/** main before the batching traffic receiver: the "before" of this bench once the change is merged */
const BEFORE_BATCHING = 'ab65826';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The vhost names a box of `count` tunnels has: the meter knows them all, the lines go round them. */
const vhostNames = (count) => Array.from({ length: count }, (_, i) => `app:svc-${i + 1}.example.test`);
const lineFor = (vhost) => Buffer.from(`<190>Nov 27 05:28:33 relay: {"v":"${vhost}","s":200,"in":78,"out":312,"t":0.001,"u":"200"}`);

/** The child's source: the panel's receiver and meter from `lib`, knowing argv[3] vhosts; its count on stdout when asked on stdin. */
const childSource = (lib) => `
import { receiveTraffic } from ${JSON.stringify(join(lib, 'traffic/receiver.ts'))};
import { TrafficMeter } from ${JSON.stringify(join(lib, 'traffic/meter.ts'))};
const meter = new TrafficMeter({ now: () => Date.now(), every: () => () => {} });
const names = (${vhostNames.toString()})(Number(process.argv[3] ?? 1));
meter.know(new Set(names));
const port = Number(process.argv[2]);
const bufferBytes = Number(process.env.BENCH_TRAFFIC_BUFFER) || undefined;
receiveTraffic(port, meter, (e) => { console.error(e); process.exit(1); }, { bufferBytes }).then(() => console.log('receiving'));
process.stdin.setEncoding('utf8').on('data', () => {
  const totals = meter.totals();
  let requests = 0;
  for (const name of names) requests += totals.get(name)?.requests ?? 0;
  console.log('counted ' + requests + ' dropped ' + JSON.stringify(meter.dropped()));
});
`;

/** lib/traffic (and what it imports) as `ref` has it, in a folder inside the repo so zod resolves. */
async function libAt(ref, dir) {
  const run = promisify(execFile);
  const lib = join(dir, 'lib');
  for (const file of ['clock.ts', 'traffic/line.ts', 'traffic/meter.ts', 'traffic/receiver.ts']) {
    const shown = await run('git', ['show', `${ref}:lib/${file}`], { cwd: root, maxBuffer: 1 << 24 }).catch(() => null);
    if (!shown) throw new Error(`git show ${ref}:lib/${file} failed: set BENCH_TRAFFIC_BASE to a commit this clone has`);
    await mkdir(join(lib, file, '..'), { recursive: true });
    await writeFile(join(lib, file), shown.stdout);
  }
  return lib;
}

async function bundleChild(lib, outfile) {
  const entry = `${outfile}.entry.ts`;
  await writeFile(entry, childSource(lib));
  await build({ entryPoints: [entry], outfile, bundle: true, platform: 'node', target: 'node20', format: 'esm', logLevel: 'error' });
  return outfile;
}

function startChild(file, port, vhosts) {
  const child = spawn(process.execPath, [file, String(port), String(vhosts)], { stdio: ['pipe', 'pipe', 'inherit'] });
  child.stdout.setEncoding('utf8');
  const lines = [];
  let waiting = null;
  child.stdout.on('data', (chunk) => {
    lines.push(...chunk.split('\n').filter(Boolean));
    waiting?.();
  });
  const next = async () => {
    while (lines.length === 0) await new Promise((r) => (waiting = r));
    return lines.shift();
  };
  return {
    pid: child.pid,
    ready: next(),
    async counted() {
      child.stdin.write('count\n');
      return Number(/counted (\d+)/.exec(await next())[1]);
    },
    stop: () => new Promise((r) => (child.once('exit', r), process.kill(child.pid, 'SIGTERM'))),
  };
}

/** `rate` datagrams a second for `seconds`, paced each millisecond, going round `vhosts` names. */
async function sendAt(port, rate, seconds, vhosts) {
  const lines = vhostNames(vhosts).map(lineFor);
  const socket = createSocket('udp4');
  let sent = 0;
  const started = performance.now();
  await new Promise((done) => {
    const timer = setInterval(() => {
      const elapsed = (performance.now() - started) / 1000;
      if (elapsed >= seconds) return clearInterval(timer), done();
      for (const due = Math.floor(elapsed * rate); sent < due; sent++) socket.send(lines[sent % lines.length], port, '127.0.0.1');
    }, 1);
  });
  await sleep(200);
  socket.close();
  return sent;
}

/** The main thread's voluntary context switches: each is a sleep in epoll_wait, so each is a wake-up. */
function wakeUps(pid) {
  const status = readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8');
  return Number(/^voluntary_ctxt_switches:\s+(\d+)/m.exec(status)?.[1] ?? NaN);
}

/** The kernel's cap on a socket's receive buffer: what the receiver's 4 MiB ask becomes (doubled). */
export function rmemMax() {
  try {
    return Number(readFileSync('/proc/sys/net/core/rmem_max', 'utf8').trim());
  } catch {
    return NaN;
  }
}

const IDLE_SLICE_MS = 250;
/** The longest wait between a receiver's turns (MAX_WAIT_MS of lib/traffic/receiver.ts), and some: the last lines sent are read within the loaded window. */
const LAST_TURN_MS = 1200;

/**
 * The child's CPU over `ms` with no lines, in IDLE_SLICE_MS slices: the steady rate is the median
 * slice's (ns a ms), and `extraNs` what the window spent above it (the memory reducer's collections).
 */
async function idleWindow(pid, ms) {
  const rates = [];
  let total = 0;
  let totalMs = 0;
  for (let sliced = 0; sliced < ms; sliced += IDLE_SLICE_MS) {
    const ns = cpuNs(pid);
    const at = performance.now();
    await sleep(IDLE_SLICE_MS);
    const spent = cpuNs(pid) - ns;
    const took = performance.now() - at;
    rates.push(spent / took);
    total += spent;
    totalMs += took;
  }
  const steady = median(rates);
  return { nsPerMs: steady, extraNs: Math.max(0, total - steady * totalMs) };
}

/**
 * The child's CPU while `rate` lines a second come for `seconds`, then over as long a window with
 * none: the idle cost (node's own, a receiver that still wakes) is real, but it is no cost of a
 * counted line, so each figure is reported raw and net of the steady idle rate measured right after it.
 */
async function phase(file, rate, seconds, vhosts = 1) {
  const port = await freeUdpPort();
  const child = startChild(file, port, vhosts);
  await child.ready;
  // warm the JIT as in a panel that has run a while: 20,000 lines, then a second of quiet for V8's compiler threads
  await sendAt(port, 10_000, 2, vhosts);
  await sleep(1000);
  const before = await child.counted();
  const load = loadavg()[0];
  const ns = cpuNs(child.pid);
  const woken = wakeUps(child.pid);
  const at = performance.now();
  const sent = await sendAt(port, rate, seconds, vhosts);
  const sendingMs = performance.now() - at;
  await sleep(LAST_TURN_MS);
  const cpu = cpuNs(child.pid) - ns;
  const wallMs = performance.now() - at;
  const wakeUpsPerS = ((wakeUps(child.pid) - woken) * 1000) / sendingMs;
  const counted = (await child.counted()) - before;
  const idle = await idleWindow(child.pid, wallMs);
  await child.stop();
  const perLine = (ns) => ns / 1e3 / Math.max(counted, 1);
  return {
    rate,
    vhosts,
    sent,
    counted,
    usPerLine: perLine(cpu),
    netUsPerLine: perLine(cpu - idle.nsPerMs * wallMs),
    idleMsPerS: idle.nsPerMs / 1e3,
    afterLoadMs: idle.extraNs / 1e6,
    wakeUpsPerS,
    load,
  };
}

const describe = (r) =>
  `${r.usPerLine.toFixed(1)} µs CPU per line raw, ${r.netUsPerLine.toFixed(1)} net of idle (idle ${r.idleMsPerS.toFixed(2)} ms/s, ${r.afterLoadMs.toFixed(1)} ms once after the load), ${r.wakeUpsPerS.toFixed(0)} wake-ups/s, counted ${r.counted}/${r.sent}, load ${r.load.toFixed(2)}`;

/** `median (min-max)` of the values, to `digits`. */
const spread = (values, digits = 1) => `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}-${Math.max(...values).toFixed(digits)})`;

export async function measureTrafficReceiver({ seconds = 3, base = process.env.BENCH_TRAFFIC_BASE || BEFORE_BATCHING, rounds = 5, log = console.log } = {}) {
  const dir = await mkdtemp(join(root, '.bench-traffic-'));
  try {
    const files = {
      base: await bundleChild(await libAt(base, join(dir, 'base')), join(dir, 'base.mjs')),
      this: await bundleChild(join(root, 'lib'), join(dir, 'this.mjs')),
    };
    const asked = Number(process.env.BENCH_TRAFFIC_BUFFER) || 4 * 1024 * 1024;
    log(`traffic receiver: net.core.rmem_max ${rmemMax()}, this tree's child asks ${asked} bytes (the kernel gives twice the ask or the cap, the smaller); ${rounds} rounds of ${seconds} s; load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    const results = [];
    for (let round = 0; round < rounds; round++) {
      for (const rate of RATES) {
        for (const which of round % 2 ? ['this', 'base'] : ['base', 'this']) {
          const r = { which, ...(await phase(files[which], rate, seconds)) };
          log(`traffic receiver ${which.padEnd(4)} ${String(rate).padStart(6)} lines/s: ${describe(r)}`);
          results.push(r);
        }
      }
    }
    const summary = RATES.map((rate) => {
      const of = (which, pick) => results.filter((r) => r.rate === rate && r.which === which).map(pick);
      const m = (which, pick) => median(of(which, pick));
      const [baseUs, thisUs, baseNetUs, thisNetUs] = [m('base', (r) => r.usPerLine), m('this', (r) => r.usPerLine), m('base', (r) => r.netUsPerLine), m('this', (r) => r.netUsPerLine)];
      // each round's pair: the machine's drift within a round hits both
      const pairs = (pick) => {
        const b = of('base', pick);
        return of('this', pick).map((t, i) => t / b[i]);
      };
      return { rate, baseUs, thisUs, ratio: thisUs / baseUs, baseNetUs, thisNetUs, netRatio: thisNetUs / baseNetUs, pairRatios: pairs((r) => r.usPerLine), of };
    });
    for (const s of summary) {
      log(
        `traffic receiver at ${s.rate} lines/s, medians (min-max) of ${rounds}: ${base} ${spread(s.of('base', (r) => r.usPerLine))} µs/line raw, ${spread(s.of('base', (r) => r.netUsPerLine))} net, ${spread(s.of('base', (r) => r.wakeUpsPerS), 0)} wake-ups/s, idle ${spread(s.of('base', (r) => r.idleMsPerS), 2)} ms/s; ` +
          `this ${spread(s.of('this', (r) => r.usPerLine))} raw (x${s.ratio.toFixed(2)}; pairs ${spread(s.pairRatios, 2)}), ${spread(s.of('this', (r) => r.netUsPerLine))} net (x${s.netRatio.toFixed(2)}), ${spread(s.of('this', (r) => r.wakeUpsPerS), 0)} wake-ups/s, idle ${spread(s.of('this', (r) => r.idleMsPerS), 2)} ms/s; ` +
          `counted ${s.of('this', (r) => r.counted).reduce((a, b) => a + b, 0)}/${s.of('this', (r) => r.sent).reduce((a, b) => a + b, 0)} (this), ${s.of('base', (r) => r.counted).reduce((a, b) => a + b, 0)}/${s.of('base', (r) => r.sent).reduce((a, b) => a + b, 0)} (base); load now ${loadavg().map((l) => l.toFixed(2)).join(' ')}`,
      );
    }
    return { base, results, summary: summary.map(({ of, ...s }) => s) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * This tree's receiver and meter knowing the vhosts of each box size (`boxes`: tunnel counts), the
 * lines going round them, at each rate; rounds alternate the order of the boxes.
 */
export async function measureMeterAtScale({ boxes, seconds = 3, rounds = 3, log = console.log }) {
  const dir = await mkdtemp(join(root, '.bench-traffic-'));
  try {
    const file = await bundleChild(join(root, 'lib'), join(dir, 'this.mjs'));
    const results = [];
    for (let round = 0; round < rounds; round++) {
      for (const rate of RATES) {
        for (const vhosts of round % 2 ? [...boxes].reverse() : boxes) {
          const r = await phase(file, rate, seconds, vhosts);
          log(`meter knowing ${vhosts} vhosts at ${rate} lines/s: ${describe(r)}`);
          results.push(r);
        }
      }
    }
    return results;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await measureTrafficReceiver({ seconds: Number(process.argv[2] ?? 3) });
