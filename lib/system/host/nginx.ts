// Host proxy: vhosts in sites-available/-enabled, `nginx -t`, reload, and a look at the error log
// after the reload, because a reload that cannot bind exits 0 and keeps the old configuration.
import { stat } from 'node:fs/promises';
import { readFromOffset } from '../common/fs.ts';
import type { SystemConfig } from '../config.ts';
import { programFailure, run } from '../exec.ts';
import { systemVhostRenderer } from '../nginx/renderer.ts';
import { nginxDiagnosis, VhostStore } from '../nginx/vhost-store.ts';
import { SystemError, type CertsAdapter, type PkiAdapter, type ProxyAdapter, type PublicLocations } from '../types.ts';
import { systemctl } from './systemctl.ts';

export function nginxArgs(config: SystemConfig): string[] {
  return [...(config.nginx.prefix ? ['-p', config.nginx.prefix] : []), '-c', config.nginx.conf];
}

export function createHostProxy(config: SystemConfig, deps: { certs: CertsAdapter; pki: PkiAdapter; publicLocations?: PublicLocations }): ProxyAdapter {
  const nginx = (args: string[]) => run(config.binaries.nginx, [...nginxArgs(config), ...args], { timeoutMs: config.timeouts.defaultMs });
  return new VhostStore({
    availableDir: config.nginx.sitesAvailable,
    enabledDir: config.nginx.sitesEnabled,
    render: systemVhostRenderer(config, {
      listenAddress: config.nginx.listenAddress,
      acmeWebroot: config.acme.webroot,
      helpDir: config.nginx.helpDir,
      selfSignedDir: config.nginx.selfSignedDir,
    }, deps),
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
  });
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
