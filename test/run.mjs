// Test runner: loads uvu suites from TypeScript sources and prints a closing line CI can read.
//
//   node test/run.mjs [--jobs N] [--times] [--typecheck] <folder-or-file relative to test/> ...
//
// --typecheck runs build/typecheck.mjs beside the tests (npm test's type check) and counts its failure.
//
// --times prints each file's wall time, slowest first, and for pooled files the CPU time its worker
// spent on it (much less than the wall time: the file waits on timers or child processes), after the run.
// Files run in N worker processes (default: os.availableParallelism()), each file's output printed
// in one piece when it is done. The integration files share programs (nginx, pebble, dnsmasq) on
// this machine, so they run one after the other in this process;
// five lanes run beside them, each a worker taking its files one after the other: the system group
// (a booted container with its own network), the browser group (Chromium on a sandbox panel of
// its own, on free ports), integration/build (bundles on free ports), integration/local (real
// processes and real waiting that share nothing: openssl, the fake systemd programs, child
// processes killed mid-write, a second user by setpriv; what keeps the unit stage fast) and
// integration/install (releases installed under prefixes of their own).
// --jobs 1 runs everything here, in order.
//
// Workers get a fresh TMPDIR on /dev/shm (tmpfs) when the machine has one, removed after the run
// with whatever a test left there: the unit suites make hundreds of temporary directories and
// synchronized writes, which on a disk cost kernel time and fsync waits (about half the run's
// system CPU) that no unit test is about.
//
// uvu has no per-test timeout and exits 0 when a pending promise empties the event loop, so this
// runner marks the run failed unless every file's suites really finished, in a worker or here.
import { fork, spawn } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { availableParallelism, setPriority } from 'node:os';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const SERIAL_GROUPS = new Set(['integration', 'browser', 'system']);

const root = resolve(new URL('.', import.meta.url).pathname);

function parseArgs(argv) {
  const targets = [];
  let jobs = availableParallelism();
  const times = argv.includes('--times');
  const typecheck = argv.includes('--typecheck');
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = arg === '--jobs' ? argv[++i] : arg.startsWith('--jobs=') ? arg.slice('--jobs='.length) : null;
    if (value !== null) {
      jobs = Number(value);
      if (!Number.isInteger(jobs) || jobs < 1) throw new Error(`--jobs needs a whole number of at least 1, got '${value}'`);
    } else if (!arg.startsWith('--')) targets.push(arg);
  }
  return { targets: targets.length ? targets : ['unit'], jobs, times, typecheck };
}

function findTests(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) out.push(...findTests(full));
    else if (name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

const { targets, jobs, times, typecheck } = parseArgs(process.argv.slice(2));
const files = [];
for (const target of targets) {
  const full = resolve(root, target);
  files.push(...(statSync(full).isDirectory() ? findTests(full) : [full]));
}
const name = (file) => relative(root, file);
const serial = (file) => jobs === 1 || SERIAL_GROUPS.has(name(file).split(sep)[0]);

const totals = { passed: 0, failed: 0, skipped: 0 };
const add = (counts) => {
  for (const key of Object.keys(totals)) totals[key] += counts[key];
};
const unfinished = [];
const started = Date.now();
/** Wall and worker CPU time of each pooled file, in ms, for --times. */
const durations = new Map();

/**
 * Runs the files in up to `jobs` worker processes, largest file first (the longest suites start
 * early, so the workers end close together). A worker that dies or ends with a file unfinished
 * marks that file failed; a new worker takes over the rest.
 */
async function runPool(pooled, lanes = jobs, niceness = 0, v8Flags = []) {
  const queue = [...pooled].sort((a, b) => statSync(b).size - statSync(a).size || a.localeCompare(b));
  const tmp = memoryTmpdir();
  const env = tmp ? { ...process.env, TMPDIR: tmp } : process.env;
  const startWorker = async () => {
    const worker = fork(new URL('./helpers/run-worker.mjs', import.meta.url), [root], {
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      // the pool's own flags first: V8 takes the last of a flag given twice, so the runner's own win
      execArgv: [...v8Flags, ...process.execArgv, '--no-warnings'],
      env,
    });
    // the programs it starts inherit it
    if (niceness) {
      try {
        setPriority(worker.pid, niceness);
      } catch {
        // a priority above the default needs root; without it the lane keeps the default
      }
    }
    // 'disconnect' comes once every message the worker sent has been read
    const ended = Promise.all([once(worker, 'exit'), once(worker, 'disconnect')]);
    let current = null;
    let output = '';
    let fileStarted = 0;
    const next = () => {
      current = queue.shift() ?? null;
      output = '';
      fileStarted = Date.now();
      if (current) worker.send({ file: current });
      else worker.disconnect();
    };
    worker.on('message', (message) => {
      if (message.type === 'output') output += message.text;
      else if (message.type === 'ready') next();
      else if (message.type === 'done') {
        process.stdout.write(output);
        durations.set(name(current), { wall: Date.now() - fileStarted, cpu: message.cpuMs });
        add(message.counts);
        next();
      }
    });
    const [[code, signal]] = await ended;
    if (!current) return;
    process.stdout.write(`${output}\n\n${name(current)}: the worker ended before every suite finished (${signal ? `signal ${signal}` : `exit code ${code}`}; a crash, or a promise that never settled?)\n`);
    unfinished.push(name(current));
    if (queue.length) await startWorker();
  };
  try {
    await Promise.all(Array.from({ length: Math.min(lanes, queue.length) }, startWorker));
  } finally {
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  }
}

/**
 * `npm test`'s type check (build/typecheck.mjs) as a lane of the run: its output printed in one piece
 * when it ends, a failure counted as one failed file.
 */
async function runTypecheck(niceness) {
  const script = fileURLToPath(new URL('../build/typecheck.mjs', import.meta.url));
  const child = spawn('/usr/bin/nice', ['-n', String(niceness), process.execPath, script], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const [code, signal] = await once(child, 'close');
  const verdict = code === 0 ? 'passed' : `FAILED (${signal ? `signal ${signal}` : `exit code ${code}`})`;
  process.stdout.write(`\ntypecheck (build/typecheck.mjs) ${verdict}\n${output}`);
  if (code !== 0) totals.failed += 1;
}

/** A new directory on tmpfs for the workers' temporary files, or null where there is no /dev/shm. */
function memoryTmpdir() {
  try {
    const dir = mkdtempSync('/dev/shm/relay-test-');
    // as /tmp is: the install lane's system users reach the 0755 directories made for them in it
    chmodSync(dir, 0o1777);
    return dir;
  } catch {
    return null;
  }
}

/** Runs the files here, one after the other. */
async function runHere(here) {
  let finished = false;
  const onExit = () => {
    if (finished) return;
    console.error('\ntest run ended before every suite finished (a promise never settled?)');
    process.exitCode = 1;
  };
  process.on('exit', onExit);
  // loaded here: a run whose files all go to workers needs no TypeScript hooks in this process
  const { runSuites } = await import('./helpers/suites.mjs');
  // cpu: not measured here (the process also runs the servers and programs some files start)
  add(await runSuites(here, root, (text) => process.stdout.write(text), (file, wall) => durations.set(file, { wall, cpu: 0 })));
  finished = true;
  process.off('exit', onExit);
}

const pooled = files.filter((file) => !serial(file));
// the lanes beside the integration files, which mostly wait on programs (the run's two cores are
// half idle during them); each lane keeps its own files one after the other. integration/build
// builds and runs bundles on free ports, integration/local runs programs of its own in temporary
// directories, and integration/install installs releases under a prefix of its own, as system users
// of random names, on a loopback harness of its own (free ports): none uses the shared programs.
const BESIDE_LANES = ['system', 'browser', `integration${sep}build`, `integration${sep}local`, `integration${sep}install`];
const laneOf = (file) => BESIDE_LANES.find((lane) => name(file).startsWith(lane + sep)) ?? null;
const beside = files.filter((file) => serial(file) && jobs > 1 && laneOf(file) !== null);
const here = files.filter((file) => serial(file) && !beside.includes(file));
const lanes = BESIDE_LANES.map((lane) => beside.filter((file) => laneOf(file) === lane)).filter((laneFiles) => laneFiles.length);
// Everything starts at once: the booted box and the install and serial integration files are the
// run's longest paths, so none waits for the unit pool, the type check or the bundles of
// integration/build, which only need CPU and take what the others leave (their niceness; the
// children they start inherit it). The box's image build and boot (about 105 s alone: mmdebstrap's
// dpkg and three release builds) lead the longest path; started with everything else they took
// 232-354 s at niceness 0 and 5, so the box goes ahead of the rest (-5, as root, which it needs anyway).
const others = here.length + lanes.length > 0;
const NICENESS = { system: -5, pool: others ? 5 : 0, typecheck: 10, [`integration${sep}build`]: 5 };
/** When each lane started and ended, in ms from the run's start, for --times. */
const laneTimes = new Map();
// a lane that throws (a program it needs is missing) is one failure, reported, never an unhandled
// rejection that would end the run before its summary, with the other lanes' workers still running
const timedLane = async (lane, work) => {
  const start = Date.now() - started;
  try {
    await work;
  } catch (error) {
    console.log(`\nlane ${lane} failed: ${error?.stack ?? error}`);
    totals.failed += 1;
  }
  laneTimes.set(lane, { start, end: Date.now() - started });
};
// The pool's workers run code once or a few hundred times, never for long: at V8's default interrupt
// budget TurboFan compiled so much of it, on threads beside the workers', that those threads took a
// third of the unit stage's CPU (about 4.6 s per worker against 8.5 s on its main thread). At eight
// times the budget only code that stays hot is optimized: about 2 s beside, the main thread no slower.
const POOL_V8_FLAGS = ['--interrupt-budget=540672'];
const stages = [
  typecheck ? timedLane('typecheck', runTypecheck(NICENESS.typecheck)) : null,
  pooled.length ? timedLane('pool', runPool(pooled, jobs, NICENESS.pool, POOL_V8_FLAGS)) : null,
  ...lanes.map((laneFiles) => timedLane(laneOf(laneFiles[0]), runPool(laneFiles, 1, NICENESS[laneOf(laneFiles[0])] ?? 0))),
];
if (here.length) await timedLane('serial', runHere(here));
await Promise.all(stages);

if (times) {
  const slowest = [...durations].sort((a, b) => b[1].wall - a[1].wall);
  const seconds = (ms) => `${(ms / 1000).toFixed(2).padStart(6)}s`;
  console.log(`\n   wall     cpu  file (slowest first)\n${slowest.map(([file, { wall, cpu }]) => `${seconds(wall)} ${seconds(cpu)}  ${file}`).join('\n')}`);
  console.log(`\n  start     end  lane\n${[...laneTimes].sort((a, b) => b[1].end - a[1].end).map(([lane, { start, end }]) => `${seconds(start)} ${seconds(end)}  ${lane}`).join('\n')}`);
}
const seconds = ((Date.now() - started) / 1000).toFixed(1);
// a worker that dies before taking a file (its TypeScript hooks did not load) leaves files that never
// ran and printed nothing: each is a failure, not a silent pass
for (const file of files.map(name)) if (!durations.has(file) && !unfinished.includes(file)) unfinished.push(file);
if (unfinished.length) console.log(`\n${unfinished.length} file(s) did not finish, each counted as one failure: ${unfinished.join(', ')}`);
totals.failed += unfinished.length;
console.log(`\n${files.length} files in ${seconds}s`);
console.log(`${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exitCode = totals.failed > 0 || files.length === 0 ? 1 : 0;
