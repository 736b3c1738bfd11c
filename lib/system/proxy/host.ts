// Host proxy: vhosts in sites-available/-enabled, `nginx -t`, and a reload that waits for its real
// outcome (reload-outcome.ts), because a reload exits 0 whether or not nginx can load what it was
// given: a listen on a port another process holds passes `nginx -t` and fails only then.
// The same pieces serve the root helper (lib/root-helper), which writes the vhosts of an installed box.
import { join } from 'node:path';
import { routesDirOf, type SystemConfig } from '../config.ts';
import { programFailure, run } from '../common/exec.ts';
import { createVhostPreparer, createVhostRenderer, defaultCertPaths, systemRendererOptions, type VhostLayout } from './renderer.ts';
import type { VhostDirPaths } from './vhost-dirs.ts';
import { vhostFingerprinter } from './fingerprint.ts';
import { nginxDiagnosis, VhostStore, type VhostStoreOptions } from './vhost-store.ts';
import { VHOST_STAMPS_FILE, VhostStamps } from './vhost-stamps.ts';
import { HelperProxy } from './helper-proxy.ts';
import { defaultServerDrift } from './default-server-drift.ts';
import { type CertsAdapter, type PkiAdapter, type ProxyAdapter, type PublicLocations, type VhostChange, type VhostSpec } from '../types.ts';
import { systemctl } from '../systemd/systemctl.ts';
import { readFile } from 'node:fs/promises';
import { certPaths } from '../certs/live-paths.ts';
import { readOwnedFile } from '../common/owned-file.ts';
import { syncSniFiles, type SniSources } from './sni-files.ts';
import { copiedCertPaths, DEFAULT_ENTRY, sniDirOf, usesTlsCopies } from './tls-copy-paths.ts';
import { childPids, logSize, logTail, nginxMasterPid, workerShuttingDown } from './nginx-proc.ts';
import { masterProblems, reloadOutcome, wallClock, throwIfFailed, type ReloadOutcome } from './reload-outcome.ts';

/** how often a reload's outcome is looked for: a look is one small /proc read and one log read */
const RELOAD_POLL_MS = 50;
/** longer than nginx's 500 ms between bind() retries (reload-outcome.ts) */
const RELOAD_SETTLE_MS = 700;

export function nginxArgs(config: SystemConfig): string[] {
  return [...(config.nginx.prefix ? ['-p', config.nginx.prefix] : []), '-c', config.nginx.conf];
}

/** Where the host's vhosts point: the configured listen address, ACME webroot, help page and IP-panel certificate. */
export function hostVhostLayout(config: SystemConfig): VhostLayout {
  return {
    listenAddress: config.nginx.listenAddress,
    acmeWebroot: config.acme.webroot,
    helpDir: config.nginx.helpDir,
    selfSignedDir: config.nginx.selfSignedDir,
    routesDir: routesDirOf(config),
    sniDir: sniDirOf(config),
  };
}

export function hostVhostDirs(config: SystemConfig): VhostDirPaths {
  return { availableDir: config.nginx.sitesAvailable, enabledDir: config.nginx.sitesEnabled, routesDir: routesDirOf(config) };
}

/**
 * What the per-name certificate map is made from: root's copies where the panel has a user of its
 * own (each read as root's own file, never through a link), certbot's files on a root panel.
 */
export function sniSources(config: SystemConfig, log: (line: string) => void): SniSources {
  const euid = process.geteuid?.() ?? 0;
  const copies = usesTlsCopies(config);
  const { tlsDir } = config.nginx;
  return {
    dir: sniDirOf(config),
    routesDir: routesDirOf(config),
    enabledDir: config.nginx.sitesEnabled,
    certFor: (fqdn) => (copies ? copiedCertPaths(tlsDir, fqdn) : certPaths(config, fqdn)),
    fallback: copies ? copiedCertPaths(tlsDir, DEFAULT_ENTRY) : defaultCertPaths(config.nginx.selfSignedDir),
    read: (path) => (copies ? readOwnedFile(path, { owners: [euid], maxBytes: MAX_PEM_BYTES }) : readFile(path)),
    log,
  };
}

/** Far above a certificate chain or a key. */
const MAX_PEM_BYTES = 1024 * 1024;

const logToStderr = (line: string) => void process.stderr.write(`${line}\n`);

/**
 * `nginx -t` and a reload checked in the error log, through the configured binaries. Before either,
 * the per-name certificate map is brought in line with the routes (sni-files.ts): what nginx loads.
 */
export function hostNginxControl(config: SystemConfig, log: (line: string) => void = logToStderr): Pick<VhostStoreOptions, 'test' | 'reload'> {
  const nginx = (args: string[]) => run(config.binaries.nginx, [...nginxArgs(config), ...args], { timeoutMs: config.timeouts.defaultMs });
  const sni = sniSources(config, log);
  return {
    async test() {
      await syncSniFiles(sni);
      try {
        await nginx(['-t', '-q']);
      } catch (e) {
        throw programFailure(e, 'nginx', 'nginx configuration test failed', nginxDiagnosis);
      }
    },
    async reload() {
      await syncSniFiles(sni);
      // what is there before the signal: the master's workers, where the log ends
      const master = await nginxMasterPid(config.nginx.pidFile);
      const before = master === null ? null : await childPids(master);
      const from = await logSize(config.nginx.errorLog);
      try {
        if (config.nginx.reloadWith === 'systemctl') await systemctl(config, ['reload', config.units.proxy]);
        // the master found, a SIGHUP is all `nginx -s reload` would send, without its own parse of
        // every vhost first (0.7-0.9 s at 1,000): nginx -t has just checked them, and a
        // configuration nginx refuses shows in the master's log lines all the same
        else if (master !== null) process.kill(master, 'SIGHUP');
        else await nginx(['-s', 'reload']);
      } catch (e) {
        throw programFailure(e, 'nginx', 'nginx reload failed', nginxDiagnosis);
      }
      const log = logTail(config.nginx.errorLog, from);
      const outcome = master !== null && before !== null
        ? await reloadOutcome(master, before, { children: () => childPids(master), lines: () => log.lines(), shuttingDown: (pid) => workerShuttingDown(pid) },
          { timeoutMs: config.nginx.reloadTimeoutMs, pollMs: RELOAD_POLL_MS, settleMs: RELOAD_SETTLE_MS })
        : await watchErrorLog(log, config.nginx.reloadCheckMs);
      throwIfFailed(outcome);
    },
  };
}

/**
 * The host's proxy adapter. On an installed box (`rootHelper`) the panel only makes what vhosts
 * point at and hands the changes to the root helper; otherwise it writes the vhosts itself.
 */
export function createHostProxy(
  config: SystemConfig,
  deps: {
    certs: CertsAdapter;
    pki: PkiAdapter;
    /** nginx's test and reload: run here, or asked of the root helper (root-actions.ts) */
    root: { nginxTest(): Promise<void>; nginxReload(): Promise<void> };
    /** the root helper's vhosts action, on an installed box */
    helper: { applyVhosts(changes: VhostChange[]): Promise<void>; refreshVhosts(specs: VhostSpec[]): Promise<string[]> } | null;
    publicLocations?: PublicLocations;
    /** where the panel keeps its records, and beside them the stamps of the vhosts it wrote */
    dataDir: string;
  },
): ProxyAdapter {
  const options = systemRendererOptions(config, hostVhostLayout(config), deps);
  const control = { test: () => deps.root.nginxTest(), reload: () => deps.root.nginxReload() };
  const stamps = new VhostStamps(join(deps.dataDir, VHOST_STAMPS_FILE), vhostFingerprinter(options, config.pki.dir));
  if (deps.helper) {
    return new HelperProxy(hostVhostDirs(config), {
      send: deps.helper.applyVhosts,
      refresh: deps.helper.refreshVhosts,
      prepare: createVhostPreparer(options),
      reload: control.reload,
      drifted: defaultServerDrift(config.nginx.conf),
    }, stamps);
  }
  return new VhostStore({ ...hostVhostDirs(config), render: createVhostRenderer({ ...options, mainConf: config.nginx.conf }), ...control, stamps, drifted: defaultServerDrift(config.nginx.conf) });
}

/**
 * Without a master to watch (no pid file where `nginx.pidFile` says, a fake nginx): any new [emerg]
 * or [alert] in the log within `ms`, as releases before the watch of the workers did.
 */
async function watchErrorLog(log: { lines(): Promise<string[]> }, ms: number): Promise<ReloadOutcome> {
  const deadline = Date.now() + ms;
  do {
    const problems = masterProblems(await log.lines(), null);
    if (problems.length) return { ok: false, problem: problems.join('; ') };
    await wallClock.sleep(RELOAD_POLL_MS);
  } while (Date.now() < deadline);
  return { ok: true };
}
