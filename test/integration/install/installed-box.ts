// A box for the install tests: a built release, the loopback harness, a temp prefix, a unique
// system user (root only), and the fake systemctl that runs the installed release as that user
// and its root helper as root on the helper's socket.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { chmod, cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SystemConfigInput } from '../../../lib/system/config.ts';
import { startInfra, type Infra } from '../../infra/harness.ts';
// @ts-expect-error plain JS build script
import { bundle } from '../../../build/build.mjs';
// @ts-expect-error plain JS build script
import { bundlePanel } from '../../../build/panel.mjs';
// @ts-expect-error plain JS build script
import { release } from '../../../build/release.mjs';
import { refuseCheckoutPaths, stageFile } from '../../helpers/staged-for-others.ts';
// @ts-expect-error plain JS test helper
import { asPanelUserArgv } from './as-panel-user.mjs';

export const fakeSystemctl = fileURLToPath(new URL('./fake-panel-systemctl.mjs', import.meta.url));
/** journalctl as the fake systemd's journal (doctor counts restarts in it); never this machine's own */
export const fakeJournalctl = fileURLToPath(new URL('../../fakes/bin/journalctl', import.meta.url));

export interface InstalledBox {
  infra: Infra;
  dir: string;
  prefix: string;
  user: string;
  /** root-request.mjs, staged where the panel user can run it */
  rootRequestScript: string;
  releaseDir: string;
  version: string;
  systemFile: string;
  env: NodeJS.ProcessEnv;
  close(): Promise<void>;
}

export interface Run {
  code: number;
  events: Array<Record<string, unknown>>;
  stderr: string;
}

/** The bundle and release of this checkout, built once per process, in a directory of their own. */
let builtOnce: Promise<{ outDir: string; version: string }> | undefined;

/**
 * A copy of this checkout's release at `outDir`. The install files run one after the other in one
 * process (their lane's worker), and the sources do not change during a run, so they share one build
 * (a bundle and a release cost seconds of CPU each time); each box gets its own copy, so a test
 * that changes its box's release changes no other box's.
 */
async function copyOfRelease(outDir: string): Promise<{ outDir: string; version: string }> {
  builtOnce ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'relay-install-release-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    await bundle({ outfile: join(dir, 'build', 'server.mjs'), quiet: true });
    // the client built here too: the system lane runs the README's build in the checkout meanwhile,
    // which empties and rewrites its dist/panel
    await bundlePanel({ outdir: join(dir, 'panel'), quiet: true });
    return release({ serverFile: join(dir, 'build', 'server.mjs'), outDir: join(dir, 'release'), clientDirs: [join(dir, 'panel')], quiet: true });
  })();
  const built = await builtOnce;
  await cp(built.outDir, outDir, { recursive: true });
  return { outDir, version: built.version };
}

/** `overrides` go over the harness's system configuration (e.g. the fake host's binaries). */
export async function startInstalledBox(overrides: SystemConfigInput = {}, env: NodeJS.ProcessEnv = {}): Promise<InstalledBox> {
  if (process.getuid?.() !== 0) throw new Error('the install tests create a system user: run them as root');
  const dir = await mkdtemp(join(tmpdir(), 'relay-install-'));
  await chmod(dir, 0o755); // the panel user must reach its release and configuration
  const prefix = join(dir, 'root');
  const user = `rpt${randomBytes(4).toString('hex')}`;
  const rootRequestScript = await stageFile(rootRequestSource, dir);
  const built = await copyOfRelease(join(dir, 'release'));
  const infra = await startInfra();
  // the harness's configuration is complete, so the overlay also names what install would default
  const system = infra.systemConfig({
    ...overrides,
    binaries: { journalctl: fakeJournalctl, ...overrides.binaries, systemctl: fakeSystemctl },
    systemd: { ...overrides.systemd, runAs: user, tunnelUser: `${user}-chisel`, portalUser: `${user}-authelia` },
  });
  const systemFile = join(dir, 'system.json');
  await writeFile(systemFile, JSON.stringify(system));
  const boxEnv: NodeJS.ProcessEnv = {
    ...process.env,
    FAKE_SYSTEMD_STATE: join(dir, 'systemd-state.json'),
    ...env,
    FAKE_PANEL_UNIT: system.units.panel,
    FAKE_PANEL_USER: user,
    FAKE_PANEL_SERVER: join(prefix, 'opt/relay-panel/current/server.mjs'),
    FAKE_PANEL_CONFIG: join(prefix, 'etc/relay-panel/config.json'),
    FAKE_PANEL_PIDFILE: join(dir, 'panel.pid'),
    FAKE_ROOT_SOCKET: join(prefix, 'run/relay-panel-root.sock'),
    FAKE_ROOT_CONFIG: join(prefix, 'opt/relay-panel/root-helper.json'),
    FAKE_ROOT_PIDFILE: join(dir, 'root-helper.pid'),
    FAKE_PANEL_LOG: join(dir, 'panel.log'),
  };
  return {
    infra, dir, prefix, user, rootRequestScript, releaseDir: built.outDir, version: built.version, systemFile, env: boxEnv,
    async close() {
      // the panel and root helper processes and the user, whatever the tests reached
      execFileSync(process.execPath, [fakeSystemctl, 'stop', system.units.panel, 'relay-panel-root.service'], { env: boxEnv, stdio: 'ignore' });
      for (const account of [user, `${user}-chisel`, `${user}-authelia`]) spawnSync('/usr/sbin/userdel', [account], { stdio: 'ignore' });
      await infra.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Runs a command of a release's bundle against the box, with --json; resolves with its events. */
export function relay(box: InstalledBox, serverFile: string, args: string[]): Promise<Run> {
  return new Promise((resolve) => {
    execFile(process.execPath, [serverFile, ...args, '--prefix', box.prefix, '--user', box.user, '--system-config', box.systemFile, '--json'],
      { env: box.env, timeout: 150_000 }, (error, stdout, stderr) => {
        const events = stdout.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Record<string, unknown>);
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, events, stderr });
      });
  });
}

export const install = (box: InstalledBox, extra: string[] = ['--no-downloads']) => relay(box, join(box.releaseDir, 'server.mjs'),
  ['install', '--ip', '127.0.0.1', '--no-harden', '--no-packages', '--health-timeout', '20', ...extra]);

export const step = (run: Run, name: string) => run.events.find((e) => e.step === name);

/** A request to the IP panel (nginx), optionally with a PKCS#12 client certificate. */
export function ipPanel(box: InstalledBox, path: string, client?: { pfx: Buffer; passphrase: string }, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const body = init.body === undefined ? undefined : JSON.stringify(init.body);
    const req = request({
      host: '127.0.0.1', port: box.infra.ports.ipPanel, path, method: init.method ?? 'GET', rejectUnauthorized: false, agent: false, ...client,
      headers: body ? { 'content-type': 'application/json' } : {},
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** argv that runs `argv` as the panel user, which must name nothing of the checkout. */
export function panelUserArgv(box: InstalledBox, argv: string[]): [string, string[]] {
  refuseCheckoutPaths(argv);
  return asPanelUserArgv(box.user, argv) as [string, string[]];
}

/** Runs a program as the panel user; `input` goes to its stdin. */
export function asPanelUser(box: InstalledBox, argv: string[], input?: string): { status: number; stdout: string; stderr: string } {
  const [binary, args] = panelUserArgv(box, argv);
  const r = spawnSync(binary, args, { encoding: 'utf8', env: { PATH: process.env.PATH }, ...(input === undefined ? {} : { input }) });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const rootRequestSource = fileURLToPath(new URL('./root-request.mjs', import.meta.url));
export const rootSocket = (box: InstalledBox) => join(box.prefix, 'run/relay-panel-root.sock');

/** One request to the root helper sent by the panel user, as a panel taken over could send it. */
export const rootRequest = (box: InstalledBox, request: unknown) =>
  asPanelUser(box, [process.execPath, box.rootRequestScript, rootSocket(box)], typeof request === 'string' ? request : JSON.stringify(request));
