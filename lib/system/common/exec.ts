// The one way lib/system runs a program: an argv array (never a shell), an absolute binary path from
// the configuration; one-shot runs (execFile) get a timeout and keep stderr for the error's details,
// long-running ones (spawnStreaming: log follows) are read as they go and killed by their owner.
// node:child_process is loaded on the first run, not at start (it pulls dgram and net's internals).
import type { ChildProcessByStdio } from 'node:child_process';
import { isAbsolute } from 'node:path';
import type { Readable } from 'node:stream';
import { SystemError } from '../types.ts';

export interface ExecOptions {
  timeoutMs: number;
  env?: NodeJS.ProcessEnv;
  /** exit statuses that are answers, not failures (`systemctl is-active` exits 3 for inactive) */
  okExitCodes?: number[];
  /** written to the program's stdin (a structured request), which is closed after it */
  input?: string;
  /**
   * run as this user and group (only root may ask): its supplementary groups are dropped, and it
   * gets a session of its own, so no terminal of root's is its controlling one (TIOCSTI could
   * type into root's shell)
   */
  as?: { uid: number; gid: number };
  cwd?: string;
}

export interface ExecResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

const MAX_OUTPUT = 16 * 1024 * 1024;

/** The tail of a program's diagnostics: enough to explain, short enough for a response. */
export function summarizeStderr(stderr: string, maxLines = 8): string {
  const lines = stderr.split('\n').map((l) => l.trimEnd()).filter((l) => l.trim() !== '');
  return lines.slice(-maxLines).join('\n');
}

/**
 * What a failed program said: its stdout and stderr (certbot explains an ACME failure on stdout,
 * nginx on stderr), else the error's own message. A timeout or a missing binary leaves both
 * streams empty, and `run` always sets stderr (possibly to ''), so `stderr ?? message` would
 * lose the message.
 */
export function failureOutput(e: unknown): string {
  const err = e as Partial<SystemError>;
  const said = [err.stdout, err.stderr].filter((t): t is string => typeof t === 'string' && t.trim() !== '').join('\n');
  return said || (e instanceof Error ? e.message : String(e));
}

/**
 * A failed run as `<what>: <summary>`, where the summary is `summarize` of what the program said
 * (failureOutput); the program's stderr and exit code stay on the error.
 */
export function programFailure(e: unknown, program: string, what: string, summarize: (output: string) => string): SystemError {
  const err = e as Partial<SystemError>;
  return new SystemError(`${what}: ${summarize(failureOutput(e))}`, program, err.stderr, err.code);
}

export function run(binary: string, args: readonly string[], opts: ExecOptions): Promise<ExecResult> {
  return runRaw(binary, args, opts).then((r) => ({ stdout: r.stdout.toString('utf8'), stderr: r.stderr, exitCode: r.exitCode }));
}

export function runBinary(binary: string, args: readonly string[], opts: ExecOptions): Promise<{ stdout: Buffer; stderr: string }> {
  return runRaw(binary, args, opts);
}

/** Why a command line may not run: a relative binary or a non-string/NUL argument; null when fine. */
function commandProblem(binary: string, args: readonly string[]): SystemError | null {
  const program = binary.split('/').pop() ?? binary;
  if (!isAbsolute(binary)) return new SystemError(`${program}: binary path must be absolute`, program);
  if (args.some((a) => typeof a !== 'string' || a.includes('\0'))) return new SystemError(`${program}: invalid argument`, program);
  return null;
}

/**
 * A long-running program whose output is read as it comes (`journalctl -f`): argv array, no shell,
 * no timeout. The caller reads stdout/stderr and kills the child when done. Throws a SystemError
 * for a command line `run` would refuse.
 */
export function spawnStreaming(binary: string, args: readonly string[]): ChildProcessByStdio<null, Readable, Readable> {
  const problem = commandProblem(binary, args);
  if (problem) throw problem;
  return process.getBuiltinModule('node:child_process').spawn(binary, [...args], { stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
}

function runRaw(binary: string, args: readonly string[], opts: ExecOptions): Promise<{ stdout: Buffer; stderr: string; exitCode: number }> {
  const program = binary.split('/').pop() ?? binary;
  const problem = commandProblem(binary, args);
  if (problem) return Promise.reject(problem);
  return new Promise((resolve, reject) => {
    const child = process.getBuiltinModule('node:child_process').execFile(
      binary,
      [...args],
      {
        timeout: opts.timeoutMs,
        killSignal: 'SIGKILL',
        maxBuffer: MAX_OUTPUT,
        env: opts.env ?? process.env,
        ...(opts.as ? { uid: opts.as.uid, gid: opts.as.gid, detached: true } : {}),
        ...(opts.cwd ? { cwd: opts.cwd } : {}),
        encoding: 'buffer',
        windowsHide: true,
      },
      (error, stdout, stderrBuf) => {
        const stderr = stderrBuf.toString('utf8');
        if (!error) return resolve({ stdout, stderr, exitCode: 0 });
        const err = error as NodeJS.ErrnoException & { killed?: boolean; code?: string | number; signal?: string };
        if (typeof err.code === 'number' && opts.okExitCodes?.includes(err.code)) return resolve({ stdout, stderr, exitCode: err.code });
        const detail = summarizeStderr(stderr) || summarizeStderr(stdout.toString('utf8'));
        let message: string;
        let code: string;
        if (err.killed && err.signal === 'SIGKILL') {
          message = `${program} timed out after ${opts.timeoutMs} ms`;
          code = 'timeout';
        } else if (err.code === 'ENOENT') {
          message = `${program} is not installed (${binary})`;
          code = 'ENOENT';
        } else if (typeof err.code === 'number') {
          message = `${program} exited with status ${err.code}`;
          code = String(err.code);
        } else {
          message = `${program} failed: ${err.message}`;
          code = String(err.code ?? err.signal ?? 'error');
        }
        reject(new SystemError(detail ? `${message}: ${detail}` : message, program, stderr, code, stdout.toString('utf8')));
      },
    );
    child.stdin?.end(opts.input);
  });
}
