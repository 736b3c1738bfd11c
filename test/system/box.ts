// A booted Debian 12 under a real systemd (systemd-nspawn -b, recipes/booted-debian.md): boot,
// run a command inside as root, power off and boot again. The container has a private network
// (only lo): the test reaches its ports through a bridge process that runs in the container's
// network namespace and listens on Unix sockets in the host's file system, so no packet leaves
// the machine and the box's 80/443/9292 never meet the host's.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const BRIDGE = fileURLToPath(new URL('./bridge.mjs', import.meta.url));
const NSENTER = '/usr/bin/nsenter';
const BOX_ENV = { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C.UTF-8', HOME: '/root' };
/** The box's ports the test talks to, through the bridge. */
export const BOX_PORTS = [80, 443, 9292] as const;
export type BoxPort = (typeof BOX_PORTS)[number];

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface Box {
  root: string;
  /** runs argv inside the box as root, in every namespace of its PID 1; never throws on a non-zero exit */
  run(argv: string[], opts?: { input?: string; timeoutMs?: number }): Promise<RunResult>;
  /** like run, but a non-zero exit throws with the output */
  sh(argv: string[], opts?: { input?: string; timeoutMs?: number }): Promise<string>;
  /** a loopback port on the host that reaches `port` on the box's own loopback */
  hostPort(port: BoxPort): number;
  /** `systemctl poweroff`, then a new boot of the same root file system */
  reboot(): Promise<void>;
  /** powers off (or kills) the container and closes the bridge; the root stays for the caller to remove */
  stop(): Promise<void>;
}

interface Booted {
  nspawn: ChildProcess;
  pid1: number;
  bridge: ChildProcess;
  exited: Promise<unknown>;
}

/** Ending a box's PID 1 ends every process of its PID namespace, and then systemd-nspawn. */
function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // gone already
  }
}

async function childSystemd(parent: number, deadline: number): Promise<number> {
  while (Date.now() < deadline) {
    const { stdout } = await exec('/usr/bin/pgrep', ['-P', String(parent), '-x', 'systemd']).catch(() => ({ stdout: '' }));
    const pid = Number(stdout.trim().split('\n')[0]);
    if (pid > 0) return pid;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`systemd-nspawn (pid ${parent}) started no systemd within the boot timeout`);
}

async function waitForSocket(path: string, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = createConnection(path, () => { s.destroy(); resolve(true); });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the box's network bridge did not open ${path}`);
}

/** Boots `root` as machine `name`; `dir` holds the console log and the bridge's sockets. */
export async function bootBox(root: string, name: string, dir: string): Promise<Box> {
  const sockets = join(dir, 'sockets');
  const forwards = new Map<BoxPort, Server>();
  let booted: Booted | null = null;
  let boots = 0;

  const runIn = (pid1: number) => (argv: string[], opts: { input?: string; timeoutMs?: number } = {}): Promise<RunResult> =>
    new Promise((resolve, reject) => {
      const child = execFile(NSENTER, ['-t', String(pid1), '-a', '--', ...argv], { env: BOX_ENV, timeout: opts.timeoutMs ?? 120_000, maxBuffer: 64 * 1024 * 1024 },
        (error, stdout, stderr) => {
          const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
          if (error && typeof error.code !== 'number') return reject(new Error(`${argv.join(' ')}: ${error.message}\n${stderr}`));
          resolve({ code, stdout, stderr });
        });
      // a command that exits before reading its input closes the pipe first: its exit code is the answer, not EPIPE
      child.stdin?.on('error', () => {});
      child.stdin?.end(opts.input ?? '');
    });

  async function boot(): Promise<void> {
    const deadline = Date.now() + 60_000;
    const log = openSync(join(dir, `console-${++boots}.log`), 'a');
    const nspawn = spawn('/usr/bin/systemd-nspawn', ['-q', '-b', '-D', root, '--private-network', '--resolv-conf=off', '--register=no', '--keep-unit', '-M', name],
      { stdio: ['ignore', log, log], detached: true });
    closeSync(log);
    const exited = once(nspawn, 'exit');
    let pid1 = 0;
    let bridge: ChildProcess | null = null;
    try {
      pid1 = await childSystemd(nspawn.pid!, deadline);
      let state = await runIn(pid1)(['systemctl', 'is-system-running', '--wait'], { timeoutMs: 60_000 });
      // systemd's own socket comes a moment after PID 1 does, and before it has made /run/systemd/system
      // systemctl takes the box for one without systemd: `offline` (seen once under a loaded CI run)
      while ((/Failed to connect to bus/.test(state.stderr) || state.stdout.trim() === 'offline') && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        state = await runIn(pid1)(['systemctl', 'is-system-running', '--wait'], { timeoutMs: 60_000 });
      }
      if (!['running', 'degraded'].includes(state.stdout.trim())) throw new Error(`the box did not boot: ${state.stdout}${state.stderr}`);
      // the bridge runs the host's node in the box's network namespace only: its files stay the host's
      await rm(sockets, { recursive: true, force: true });
      await mkdir(sockets, { recursive: true });
      bridge = spawn(NSENTER, ['-t', String(pid1), '-n', '--', process.execPath, BRIDGE, sockets, ...BOX_PORTS.map(String)],
        { stdio: ['ignore', 'ignore', 'inherit'] });
      for (const port of BOX_PORTS) await waitForSocket(join(sockets, `${port}.sock`), deadline);
    } catch (e) {
      // a box that failed to come up must not outlive the test (its root is removed next)
      bridge?.kill();
      kill(pid1 || nspawn.pid!);
      await exited;
      throw e;
    }
    booted = { nspawn, pid1, bridge, exited };
  }

  async function powerOff(): Promise<void> {
    if (!booted) return;
    const { nspawn, pid1, bridge, exited } = booted;
    booted = null;
    bridge.kill();
    if (nspawn.exitCode === null && nspawn.signalCode === null) {
      await runIn(pid1)(['systemctl', 'poweroff'], { timeoutMs: 10_000 }).catch(() => null);
      const timer = setTimeout(() => kill(pid1), 30_000);
      await exited;
      clearTimeout(timer);
    }
  }

  // one loopback listener on the host per box port, kept across reboots: a reboot only changes
  // which bridge the Unix socket belongs to
  // a connection whose far end never closed (the box powered off under it) would outlive the test
  const connections = new Set<Socket>();
  for (const port of BOX_PORTS) {
    const server = createServer((client) => {
      connections.add(client);
      client.on('close', () => connections.delete(client));
      const upstream = createConnection(join(sockets, `${port}.sock`));
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    forwards.set(port, server);
  }

  await boot();
  const box: Box = {
    root,
    run: (argv, opts) => {
      if (!booted) return Promise.reject(new Error('the box is not running'));
      return runIn(booted.pid1)(argv, opts);
    },
    async sh(argv, opts) {
      const r = await box.run(argv, opts);
      if (r.code !== 0) throw new Error(`${argv.join(' ')} exited ${r.code}:\n${r.stdout}\n${r.stderr}`);
      return r.stdout;
    },
    hostPort(port) {
      const address = forwards.get(port)!.address();
      return typeof address === 'object' && address ? address.port : 0;
    },
    async reboot() {
      await powerOff();
      await boot();
    },
    async stop() {
      await powerOff();
      for (const server of forwards.values()) server.close();
      for (const connection of connections) connection.destroy();
    },
  };
  return box;
}

/** The console of every boot so far, for a failure message. */
export async function consoleLog(dir: string): Promise<string> {
  return readFile(join(dir, 'console-1.log'), 'utf8').catch(() => '');
}
