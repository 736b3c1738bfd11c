// Host proxy: vhosts in sites-available/-enabled, `nginx -t`, reload, and a look at the error log
// after the reload, because a reload that cannot bind exits 0 and keeps the old configuration.
// The same pieces serve the root helper (lib/root-helper), which writes the vhosts of an installed box.
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { readFromOffset } from '../common/fs.ts';
import type { SystemConfig } from '../config.ts';
import { programFailure, run } from '../common/exec.ts';
import { createVhostPreparer, createVhostRenderer, systemRendererOptions, type VhostLayout } from './renderer.ts';
import type { VhostDirPaths } from './vhost-dirs.ts';
import { vhostFingerprint } from './fingerprint.ts';
import { nginxDiagnosis, VhostStore, type VhostStoreOptions } from './vhost-store.ts';
import { VHOST_STAMPS_FILE, VhostStamps } from './vhost-stamps.ts';
import { HelperProxy } from './helper-proxy.ts';
import { SystemError, type CertsAdapter, type PkiAdapter, type ProxyAdapter, type PublicLocations, type VhostChange, type VhostSpec } from '../types.ts';
import { systemctl } from '../systemd/systemctl.ts';

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
  };
}

export function hostVhostDirs(config: SystemConfig): VhostDirPaths {
  return { availableDir: config.nginx.sitesAvailable, enabledDir: config.nginx.sitesEnabled };
}

/** `nginx -t` and a reload checked in the error log, through the configured binaries. */
export function hostNginxControl(config: SystemConfig): Pick<VhostStoreOptions, 'test' | 'reload'> {
  const nginx = (args: string[]) => run(config.binaries.nginx, [...nginxArgs(config), ...args], { timeoutMs: config.timeouts.defaultMs });
  return {
    async test() {
      try {
        await nginx(['-t', '-q']);
      } catch (e) {
        throw programFailure(e, 'nginx', 'nginx configuration test failed', nginxDiagnosis);
      }
    },
    async reload() {
      const before = await fileSize(config.nginx.errorLog);
      try {
        if (config.nginx.reloadWith === 'systemctl') await systemctl(config, ['reload', config.units.proxy]);
        else await nginx(['-s', 'reload']);
      } catch (e) {
        throw programFailure(e, 'nginx', 'nginx reload failed', nginxDiagnosis);
      }
      const problem = await watchErrorLog(config.nginx.errorLog, before, config.nginx.reloadCheckMs);
      if (problem) throw new SystemError(`nginx reload failed: ${problem}`, 'nginx', problem);
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
  const stamps = new VhostStamps(join(deps.dataDir, VHOST_STAMPS_FILE), vhostFingerprint(options, config.pki.dir));
  if (deps.helper) {
    return new HelperProxy(hostVhostDirs(config), {
      send: deps.helper.applyVhosts,
      refresh: deps.helper.refreshVhosts,
      prepare: createVhostPreparer(options),
      reload: control.reload,
    }, stamps);
  }
  return new VhostStore({ ...hostVhostDirs(config), render: createVhostRenderer(options), ...control, stamps });
}

async function fileSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

/** New [emerg] lines in the error log within `ms` after a reload, or null. */
async function watchErrorLog(path: string, from: number, ms: number): Promise<string | null> {
  const deadline = Date.now() + ms;
  do {
    const text = await readFromOffset(path, from).then((r) => r.text, () => '');
    const emerg = text.split('\n').filter((l) => /\[emerg\]/.test(l));
    if (emerg.length) return emerg.map((l) => l.replace(/^.*?\[emerg\] \d+#\d+: /, '')).join('; ');
    await new Promise((r) => setTimeout(r, 50));
  } while (Date.now() < deadline);
  return null;
}
