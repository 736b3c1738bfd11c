// Child processes of the benchmark and what /proc says about them.
// Every child is tracked by PID, killed by PID and waited for; nothing is killed by name.
import { execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';

let clockTicks;
/** Clock ticks per second of utime/stime in /proc/<pid>/stat (`getconf CLK_TCK`, else 100). */
export function clkTck() {
  if (clockTicks) return clockTicks;
  try {
    clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8', timeout: 2000 }).trim()) || 100;
  } catch {
    clockTicks = 100;
  }
  return clockTicks;
}

/** utime + stime of the process (all its threads), in clock ticks. */
export function cpuTicks(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces and parentheses: count fields after the last ')'.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // fields[0] is field 3 (state); utime is field 14, stime field 15.
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * Time on CPU of all live threads of the process, in nanoseconds (/proc/<pid>/task/<tid>/schedstat):
 * a finer clock than the ticks of /proc/<pid>/stat, for runs too short to count many ticks.
 */
export function cpuNs(pid) {
  let total = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {}
  }
  return total;
}

/** VmRSS and VmHWM of the process, in bytes. */
export function memory(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
}

export function cpuModel() {
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8').split('\n').find((l) => l.startsWith('model name'));
    if (line) return line.split(':').slice(1).join(':').trim();
  } catch {}
  return cpus()[0]?.model ?? 'unknown';
}

const children = new Set();
const LISTENING = /listening on http:\/\/127\.0\.0\.1:(\d+)/;

/**
 * Spawns `node <args>` and resolves once a stdout line matches `listening on http://127.0.0.1:<port>`.
 * Rejects if the process exits first or the line does not come within `timeoutMs`.
 */
export function startNode(args, options = {}) {
  return startProcess(process.execPath, args, options);
}

/**
 * Spawns `file <args>` (no shell), tracked like startNode's children. `ready` is resolved by the
 * first stdout match of `readyPattern` (default: the `listening on` line; its port is kept), or at
 * once when `readyPattern` is null (a program that prints nothing, such as nginx: poll it instead).
 */
export function startProcess(file, args, { env = {}, cwd, timeoutMs = 15_000, name = 'child', readyPattern = LISTENING } = {}) {
  const spawnedAt = performance.now();
  const child = spawn(file, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const handle = {
    name,
    child,
    pid: child.pid,
    spawnedAt,
    output: '',
    exited: new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal }))),
  };
  children.add(handle);
  handle.exited.then(() => children.delete(handle));
  const keep = (chunk) => {
    handle.output += chunk;
    if (handle.output.length > 64 * 1024) handle.output = handle.output.slice(-32 * 1024);
  };
  child.stderr.setEncoding('utf8').on('data', keep);
  const ready = new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(() => fail(new Error(`${name}: no line matching ${readyPattern} within ${timeoutMs} ms`)), timeoutMs);
    const fail = (error) => {
      clearTimeout(timer);
      reject(new Error(`${error.message}\n--- ${name} output ---\n${handle.output.trim()}`));
    };
    child.once('error', fail);
    handle.exited.then(({ code, signal }) => fail(new Error(`${name} exited early (code ${code}, signal ${signal})`)));
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      keep(chunk);
      if (!readyPattern) return;
      buffered += chunk;
      const match = readyPattern.exec(buffered);
      if (match) {
        clearTimeout(timer);
        buffered = '';
        if (match[1]) {
          handle.port = Number(match[1]);
          handle.url = `http://127.0.0.1:${handle.port}`;
        }
        resolve(handle);
      }
    });
    if (!readyPattern) {
      clearTimeout(timer);
      child.once('spawn', () => resolve(handle));
    }
  });
  handle.ready = ready;
  return handle;
}

/** SIGTERM by PID, SIGKILL after `graceMs`, and wait until the process has exited. */
export async function stopChild(handle, graceMs = 5000) {
  if (!handle || handle.child.exitCode !== null || handle.child.signalCode !== null) return;
  try {
    process.kill(handle.pid, 'SIGTERM');
  } catch {}
  const timer = setTimeout(() => {
    try {
      process.kill(handle.pid, 'SIGKILL');
    } catch {}
  }, graceMs);
  await handle.exited;
  clearTimeout(timer);
}

export async function stopAllChildren() {
  await Promise.all([...children].map((h) => stopChild(h, 2000)));
}

/** Synchronous last resort (process 'exit'): SIGKILL whatever is still tracked. */
export function killAllChildrenNow() {
  for (const handle of children) {
    try {
      process.kill(handle.pid, 'SIGKILL');
    } catch {}
  }
}
