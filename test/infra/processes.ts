// Children the harness starts: spawned directly (no shell), logged to files, stopped by PID and
// reaped, so nothing outlives a test file.
import { spawn, type ChildProcess } from 'node:child_process';
import { openSync, closeSync } from 'node:fs';

export interface Managed {
  name: string;
  child: ChildProcess;
  logFile: string;
  exited: Promise<void>;
}

export function startProcess(name: string, binary: string, args: string[], logFile: string, env?: NodeJS.ProcessEnv): Managed {
  const fd = openSync(logFile, 'a');
  const child = spawn(binary, args, { stdio: ['ignore', fd, fd], env: env ?? process.env });
  closeSync(fd);
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    child.once('exit', () => resolve());
    child.once('error', () => resolve());
  });
  return { name, child, logFile, exited };
}

/** The panel's bundle in production mode (as its systemd unit runs it), logging to `logFile`. */
export function startPanelBundle(bundle: string, configFile: string, logFile: string): Managed {
  return startProcess('panel', process.execPath, [bundle, '--config', configFile], logFile, { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'warn' });
}

export function isRunning(p: Managed): boolean {
  return p.child.exitCode === null && p.child.signalCode === null && p.child.pid !== undefined;
}

export async function stopProcess(p: Managed, graceMs = 5000): Promise<void> {
  if (!isRunning(p)) return;
  p.child.kill('SIGTERM');
  const timer = setTimeout(() => {
    if (isRunning(p)) p.child.kill('SIGKILL');
  }, graceMs);
  await p.exited;
  clearTimeout(timer);
}

/** Polls `probe` every 25 ms until it resolves true; fails early when the process died. */
export async function waitFor(what: string, probe: () => Promise<boolean>, proc: Managed | null, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (proc && !isRunning(proc)) throw new Error(`${what} exited early; see ${proc.logFile}`);
    if (await probe().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`${what} not ready after ${timeoutMs} ms${proc ? `; see ${proc.logFile}` : ''}`);
}
