// Cold start: spawn -> first 200 on /api/health, the panel against a bare node:http
// server, the panel restarting one seeded box. The panel starts as a box starts it, through the
// start script beside the launcher (server-start: from the startup snapshot when its record matches),
// and through the launcher and its code cache beside it. Those and the raw server alternate so that
// load from the other engineers on the machine falls on all alike. `npm run bench -- --only=cold-start` runs
// this part alone; `node test/bench/cold-start.mjs --scale` the starts at 0, 200 and 1,000 tunnels
// of another ref's panel beside this tree's (at the end of this file).
import { execFile } from 'node:child_process';
import { access, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { probe, send } from './http.mjs';
import { cpuNs, startNode, startProcess, stopChild } from './proc.mjs';
import { snapshotFiles } from '../../lib/startup-snapshot.mjs';
import { seed } from './seed.mjs';

const RAW_SERVER = fileURLToPath(new URL('./raw-server.mjs', import.meta.url));

/**
 * Every start here (the panel's, the raw server's, the `node -e 0` floor) gets the environment a
 * box's unit gives node, which names no NODE_EXTRA_CA_CERTS. A shell on the bench machine names the
 * system's bundle there, and node then parses its 140-odd certificates before any JavaScript runs:
 * 60-75 ms of every start, which made the floor 100-120 ms instead of 25-45 ms and every ratio to it
 * look smaller than on a box. (An undefined value leaves the variable out of the child's environment.)
 */
export const BOX_START_ENV = { NODE_EXTRA_CA_CERTS: undefined };
/** The issue's target: the panel's median within this factor of the raw server's, same run. */
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
async function template(dir, panelArgs, seedOptions = {}, timeoutMs = undefined) {
  const { configPath } = await seed(dir, seedOptions);
  const first = startNode([...panelArgs, '--config', configPath], { env: { ...BOX_START_ENV, NODE_ENV: 'production' }, cwd: dir, name: 'cold-start template', timeoutMs });
  try {
    await first.ready;
    const health = await probe(`${first.url}/api/health`);
    if (health.status !== 200) throw new Error(`cold-start template: GET /api/health ${health.status} ${health.text}`);
    const healthFile = join(dir, '..', 'cold-health.json');
    await writeFile(healthFile, health.body);
    return { dir, configPath, rawArgs: [RAW_SERVER, `/api/health=${healthFile}`] };
  } finally {
    await stopChild(first);
  }
}

/**
 * Spawn `file` (node unless given) with `args` and time it to the first 200 on /api/health;
 * `fromBlob`: whether the node that answered was given a startup snapshot (its command line).
 */
async function coldStart(dir, args, name, env = {}, file = process.execPath) {
  const spawnedAt = performance.now();
  const server = startProcess(file, args, { env: { ...BOX_START_ENV, NODE_ENV: 'production', ...env }, cwd: dir, name });
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
    const firstOkMs = performance.now() - spawnedAt;
    // the CPU the start took, which the load of others on the machine stretches far less than its wall time
    const cpuMs = cpuNs(server.pid) / 1e6;
    const fromBlob = (await readFile(`/proc/${server.pid}/cmdline`, 'utf8')).split('\0').includes('--snapshot-blob');
    return { firstOkMs, listeningMs, attempts, cpuMs, fromBlob };
  } finally {
    await stopChild(server);
  }
}

const summary = (runs) => ({ medianMs: median(runs.map((c) => c.firstOkMs)), cpuMs: median(runs.map((c) => c.cpuMs)), runs });

/**
 * `count` cold starts of the panel and of the raw server, alternating, each panel start a restart
 * of the template box in place: through the start script beside the launcher (the last of
 * `panelArgs`, node flags before it) as a box starts it, and through the launcher itself. The
 * figures at the top are the start script's (the launcher's when there is none: an older build);
 * `startedFrom` says whether its starts came from the snapshot. A copy of the box would give every
 * vhost a new inode, which the panel's vhost stamps count as touched since it wrote them: that start
 * would read every vhost, as after an upgrade, where a restart reads none.
 */
export async function measureColdStarts({ workDir, panelArgs, count, checkInterrupted = () => {} }) {
  const dir = join(workDir, 'cold-box');
  const box = await template(dir, panelArgs);
  const script = snapshotFiles(panelArgs.at(-1)).startScript;
  const hasScript = await access(script).then(() => true, () => false);
  const boxStarts = [];
  const launcher = [];
  const raw = [];
  for (let i = 1; i <= count; i++) {
    checkInterrupted();
    // the script's node is this one, as the unit names the node it runs
    if (hasScript) boxStarts.push(await coldStart(dir, ['--config', box.configPath], `server-start cold start ${i}`, { RELAY_PANEL_NODE: process.execPath }, script));
    checkInterrupted();
    launcher.push(await coldStart(dir, [...panelArgs, '--config', box.configPath], `launcher cold start ${i}`));
    checkInterrupted();
    raw.push(await coldStart(dir, box.rawArgs, `raw cold start ${i}`));
  }
  const rawSummary = summary(raw);
  const withRatio = (s) => ({ ...s, ratio: s.medianMs / rawSummary.medianMs });
  const fromBlob = boxStarts.filter((c) => c.fromBlob).length;
  const startedFrom = !hasScript
    ? `the launcher (no ${script})`
    : fromBlob === count ? 'the startup snapshot, through server-start' : `server-start, from the snapshot in ${fromBlob} of ${count} starts (its record does not name this node, blob and flags: run node build/build.mjs)`;
  const top = withRatio(summary(hasScript ? boxStarts : launcher));
  return { ...top, startedFrom, launcher: hasScript ? withRatio(summary(launcher)) : null, raw: rawSummary };
}

/** The target row of the issue: a box's start (server-start) within 1.3× the raw server's median, same run; the launcher beside it. */
export function coldStartTarget(cold) {
  const launcher = cold.launcher ? `; the launcher through its code cache: ${cold.launcher.medianMs.toFixed(0)} ms, ${cold.launcher.ratio.toFixed(2)}×` : '';
  return {
    figure: 'cold start',
    target: `≤ ${COLD_START_LIMIT}× a bare node:http server`,
    measured: `${cold.medianMs.toFixed(0)} ms, ${cold.ratio.toFixed(2)}× (median of ${cold.runs.length}, from ${cold.startedFrom}${launcher}; the raw server: ${cold.raw.medianMs.toFixed(0)} ms)`,
    met: cold.ratio <= COLD_START_LIMIT,
  };
}

const series = (runs) => runs.map((c) => c.firstOkMs.toFixed(1)).join(', ');
export const describeColdStarts = (cold) =>
  `cold start from ${cold.startedFrom}: ${series(cold.runs)} ms (CPU ${cold.cpuMs.toFixed(1)} ms)` +
  (cold.launcher ? `; the launcher ${series(cold.launcher.runs)} ms (CPU ${cold.launcher.cpuMs.toFixed(1)} ms)` : '') +
  `; raw ${series(cold.raw.runs)} ms; medians ${cold.medianMs.toFixed(1)}${cold.launcher ? ` / ${cold.launcher.medianMs.toFixed(1)}` : ''} / ${cold.raw.medianMs.toFixed(1)} ms (${cold.ratio.toFixed(2)}×${cold.launcher ? `, the launcher ${cold.launcher.ratio.toFixed(2)}×` : ''})`;

// ---------------------------------------------------------------- starts at scale
//
//   node test/bench/cold-start.mjs --scale [--before=main] [--runs=5] [--tunnels=0,200,1000] [--marks]
//
// `--marks` also prints, for each panel that takes them (lib/start-marks.ts), the median CPU and
// wall time of each step of its starts, and each step's difference from the smallest box's.
// Restarts of one box per size and per panel, in place: a box that has run once (its vhosts
// written, and on this tree their stamps taken), started again with nothing changed, as on a
// restart or a reboot. (A copy of the box would give every vhost a new inode, which the stamps
// count as touched: an upgrade-like start, not a restart.) `before` is a git ref whose lib is
// bundled from a temporary checkout; `after` is this tree. The floor is `node -e 0`, spawn to exit.
// Every round starts each size's before, after and floor in turn, so the load from others falls
// on all alike, the growth from the smallest box included (also read round by round).

const run = promisify(execFile);
const root = fileURLToPath(new URL('../..', import.meta.url));
const SCALE_FLAGS = ['--max-semi-space-size=4'];

async function bundleOf(srcRoot, outfile) {
  const { bundle } = await import(pathToFileURL(join(srcRoot, 'build', 'build.mjs')).href);
  await bundle({ entry: join(srcRoot, 'lib', 'cli.ts'), outfile, quiet: true });
  return outfile;
}

/** The ref's server sources and build scripts in a temporary checkout, bundled; this repository's node_modules. */
async function bundleOfRef(ref, workDir) {
  const src = join(workDir, `src-${ref.replace(/[^\w.-]/g, '_')}`);
  await mkdir(src, { recursive: true });
  const tar = join(workDir, 'src.tar');
  await run('git', ['-C', root, 'archive', '--format=tar', '-o', tar, ref, 'lib', 'handlers', 'build', 'package.json', 'tsconfig.json', 'tsconfig.lib.json']);
  await run('tar', ['-xf', tar, '-C', src]);
  await symlink(join(root, 'node_modules'), join(src, 'node_modules'));
  return bundleOf(src, join(src, 'dist', 'server.mjs'));
}

async function floorMs() {
  const at = performance.now();
  await run(process.execPath, ['-e', '0'], { env: { ...process.env, ...BOX_START_ENV } });
  return performance.now() - at;
}

const vhostFiles = async (dir) => (await readdir(join(dir, 'data', 'system'), { recursive: true })).filter((f) => /sites-available\/relay-.*\.conf$/.test(f)).length;

/** Each step's CPU and wall time (ms since the step before; `start`: since the spawn) of each marked start. */
async function readMarks(file) {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).map((line) => {
    let cpu = 0;
    let wall = 0;
    return JSON.parse(line).map(([step, cpuMs, wallMs]) => {
      const row = { step, cpuMs: cpuMs - cpu, wallMs: wallMs - wall };
      [cpu, wall] = [cpuMs, wallMs];
      return row;
    });
  });
}

/** Median per step over the starts: { step: { cpuMs, wallMs } }, in the order the steps came. */
function stepMedians(starts) {
  const steps = new Map();
  for (const start of starts) for (const { step, cpuMs, wallMs } of start) {
    if (!steps.has(step)) steps.set(step, { cpu: [], wall: [] });
    steps.get(step).cpu.push(cpuMs);
    steps.get(step).wall.push(wallMs);
  }
  return new Map([...steps].map(([step, { cpu, wall }]) => [step, { cpuMs: median(cpu), wallMs: median(wall) }]));
}

function logMarks(rows, log) {
  const [smallest] = rows;
  for (const name of ['before', 'after']) {
    if (!rows.every((row) => row[name].marks?.size)) continue;
    log(`${name}: CPU / wall ms per step, medians (${rows.map((row) => `${row.tunnels} tunnels`).join(' | ')} | difference)`);
    for (const [step, base] of smallest[name].marks) {
      const cells = rows.map((row) => row[name].marks.get(step)).map((m) => (m ? `${m.cpuMs.toFixed(1)} / ${m.wallMs.toFixed(1)}` : '-'));
      const last = rows.at(-1)[name].marks.get(step);
      log(`  ${step.padEnd(14)} ${cells.join(' | ')} | ${last ? `${(last.cpuMs - base.cpuMs).toFixed(1)} / ${(last.wallMs - base.wallMs).toFixed(1)}` : '-'}`);
    }
  }
}

/**
 * `bundles` maps before/after to a launcher file, or to the node arguments that start it (the
 * snapshot comparison's `--snapshot-blob`); SCALE_FLAGS come first either way.
 */
export async function measureScaleStarts({ workDir, bundles, tunnelCounts, count, marks = false, log = console.log }) {
  const sizes = [];
  for (const tunnels of tunnelCounts) {
    const boxes = {};
    for (const [name, bundle] of Object.entries(bundles)) {
      const dir = join(workDir, `box-${tunnels}-${name}`);
      const start = [...SCALE_FLAGS, ...[bundle].flat()];
      // the first start of a seeded box writes every vhost, one tunnel repair at a time
      const made = await template(dir, start, { tunnelCount: tunnels }, 600_000);
      boxes[name] = { args: [...start, '--config', made.configPath], dir, runs: [], env: marks ? { RELAY_PANEL_START_MARKS: join(workDir, `marks-${tunnels}-${name}.jsonl`) } : {} };
    }
    sizes.push({ tunnels, boxes, floor: [], load: [] });
  }
  // every round starts every box of every size, so a change of the load between rounds falls on
  // each size alike and the growth from the smallest box is read round by round
  for (let i = 1; i <= count; i++) {
    for (const size of sizes) {
      size.load.push(loadavg()[0]);
      for (const [name, box] of Object.entries(size.boxes)) box.runs.push(await coldStart(box.dir, box.args, `${name} ${size.tunnels} tunnels start ${i}`, box.env));
      size.floor.push(await floorMs());
    }
  }
  const rows = [];
  for (const { tunnels, boxes, floor, load } of sizes) {
    const row = { tunnels, vhosts: await vhostFiles(boxes.after.dir), floorMs: median(floor), load: median(load), loadRange: [Math.min(...load), Math.max(...load)] };
    for (const [name, box] of Object.entries(boxes)) {
      row[name] = { medianMs: median(box.runs.map((r) => r.firstOkMs)), cpuMs: median(box.runs.map((r) => r.cpuMs)), runs: box.runs };
      if (marks) row[name].marks = stepMedians(await readMarks(box.env.RELAY_PANEL_START_MARKS));
    }
    rows.push(row);
    log(`${tunnels} tunnels (${row.vhosts} vhosts): before ${row.before.medianMs.toFixed(0)} ms (CPU ${row.before.cpuMs.toFixed(0)} ms), after ${row.after.medianMs.toFixed(0)} ms (CPU ${row.after.cpuMs.toFixed(0)} ms): ${(row.after.medianMs / row.before.medianMs).toFixed(2)}× before; node -e floor ${row.floorMs.toFixed(0)} ms (after ${(row.after.medianMs / row.floorMs).toFixed(2)}× floor, before ${(row.before.medianMs / row.floorMs).toFixed(2)}×); load average ${row.load.toFixed(2)} (${row.loadRange.map((l) => l.toFixed(2)).join('-')})`);
  }
  const [smallest] = rows;
  for (const row of rows) {
    const growth = (name, key) => (row[name][key] / smallest[name][key]).toFixed(2);
    // the same round's starts of the two sizes, one ratio a round
    const paired = (name) => median(row[name].runs.map((r, i) => r.firstOkMs / smallest[name].runs[i].firstOkMs)).toFixed(2);
    log(`at ${row.tunnels} tunnels, against ${smallest.tunnels}: after ${growth('after', 'medianMs')}× (CPU ${growth('after', 'cpuMs')}×; median of each round's ratio ${paired('after')}×), before ${growth('before', 'medianMs')}× (CPU ${growth('before', 'cpuMs')}×; each round's ${paired('before')}×)`);
  }
  if (marks) logMarks(rows, log);
  return rows;
}

const USAGE = `node test/bench/cold-start.mjs --scale [--before=<git ref, default main>] [--runs=<starts per box, default 5>]
    [--tunnels=<box sizes, default 0,200,1000>] [--marks]
  Restarts of one box per size, this tree's panel interleaved with the ref's and with \`node -e 0\`.
  --marks: each step's median CPU / wall time of the panels that mark their steps (RELAY_PANEL_START_MARKS).
node test/bench/cold-start.mjs --snapshot [--before=<git ref>] [--runs=9] [--tunnels=0,1000] [--marks]
  This tree's launcher through its code cache against its startup snapshot; with --before, the
  ref's startup snapshot against this tree's.
(npm run bench -- --only=cold-start: the panel against a bare node:http server.)`;

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && !process.argv.includes('--scale') && !process.argv.includes('--snapshot')) console.log(USAGE);

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && process.argv.includes('--scale')) {
  const arg = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
  const workDir = await mkdtemp(join(tmpdir(), 'relay-scale-starts-'));
  try {
    const bundles = { before: await bundleOfRef(arg('before', 'main'), workDir), after: await bundleOf(root, join(workDir, 'after', 'server.mjs')) };
    await measureScaleStarts({ workDir, bundles, tunnelCounts: arg('tunnels', '0,200,1000').split(',').map(Number), count: Number(arg('runs', '5')), marks: process.argv.includes('--marks') });
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

// ---------------------------------------------------------------- code cache against a startup snapshot
//
//   node test/bench/cold-start.mjs --snapshot [--before=<git ref>] [--runs=9] [--tunnels=0,1000]
//
// This tree's bundle started by its launcher through its code cache ("before") and from a V8
// startup snapshot of the same bundle's evaluation ("after", build/snapshot.mjs; node is given the
// blob directly, as dist/server-start does once its record matches), interleaved with the floor.
// With --before, "before" is the ref's bundle from its own snapshot (made by the ref's builder).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href && process.argv.includes('--snapshot')) {
  const arg = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
  const workDir = await mkdtemp(join(tmpdir(), 'relay-snapshot-starts-'));
  try {
    const launcher = await bundleOf(root, join(workDir, 'after', 'server.mjs'));
    const snapshotOf = async (srcRoot, outfile) => {
      const { makeSnapshot } = await import(pathToFileURL(join(srcRoot, 'build', 'snapshot.mjs')).href);
      return ['--snapshot-blob', (await makeSnapshot({ outfile, flags: SCALE_FLAGS })).blob, outfile];
    };
    const ref = arg('before', null);
    let before = launcher;
    if (ref) {
      const refLauncher = await bundleOfRef(ref, workDir);
      before = await snapshotOf(join(refLauncher, '..', '..'), refLauncher);
    }
    console.log(ref ? `before: ${ref}'s startup snapshot; after: this tree's` : 'before: the launcher through its code cache; after: the startup snapshot');
    await measureScaleStarts({ workDir, bundles: { before, after: await snapshotOf(root, launcher) }, tunnelCounts: arg('tunnels', '0,1000').split(',').map(Number), count: Number(arg('runs', '9')), marks: process.argv.includes('--marks') });
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}
