// Host proxy: vhosts in sites-available/-enabled, `nginx -t`, reload, and a look at the error log
// after the reload, because a reload that cannot bind exits 0 and keeps the old configuration.
import { open, stat } from 'node:fs/promises';
import type { SystemConfig } from '../config.ts';
import { run } from '../exec.ts';
import { createVhostRenderer } from '../nginx/renderer.ts';
import { nginxDiagnosis, VhostStore } from '../nginx/vhost-store.ts';
import { SystemError, type CertsAdapter, type PkiAdapter, type ProxyAdapter } from '../types.ts';

export function nginxArgs(config: SystemConfig): string[] {
  return [...(config.nginx.prefix ? ['-p', config.nginx.prefix] : []), '-c', config.nginx.conf];
}

export function createHostProxy(config: SystemConfig, deps: { certs: CertsAdapter; pki: PkiAdapter }): ProxyAdapter {
  const nginx = (args: string[]) => run(config.binaries.nginx, [...nginxArgs(config), ...args], { timeoutMs: config.timeouts.defaultMs });
  return new VhostStore({
    availableDir: config.nginx.sitesAvailable,
    enabledDir: config.nginx.sitesEnabled,
    render: createVhostRenderer({
      listenAddress: config.nginx.listenAddress,
      ports: config.ports,
      acmeWebroot: config.acme.webroot,
      helpDir: config.nginx.helpDir,
      selfSignedDir: config.nginx.selfSignedDir,
      openssl: config.binaries.openssl,
      timeoutMs: config.timeouts.defaultMs,
      certs: deps.certs,
      pki: deps.pki,
    }),
    async test() {
      try {
        await nginx(['-t', '-q']);
      } catch (e) {
        const err = e as SystemError;
        throw new SystemError(`nginx configuration test failed: ${nginxDiagnosis(err.stderr || err.message)}`, 'nginx', err.stderr, err.code);
      }
    },
    async reload() {
      const before = await fileSize(config.nginx.errorLog);
      try {
        if (config.nginx.reloadWith === 'systemctl') {
          await run(config.binaries.systemctl, ['reload', config.units.proxy], { timeoutMs: config.timeouts.defaultMs });
        } else {
          await nginx(['-s', 'reload']);
        }
      } catch (e) {
        const err = e as SystemError;
        throw new SystemError(`nginx reload failed: ${nginxDiagnosis(err.stderr || err.message)}`, 'nginx', err.stderr, err.code);
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
    const text = await readFrom(path, from);
    const emerg = text.split('\n').filter((l) => /\[emerg\]/.test(l));
    if (emerg.length) return emerg.map((l) => l.replace(/^.*?\[emerg\] \d+#\d+: /, '')).join('; ');
    await new Promise((r) => setTimeout(r, 50));
  } while (Date.now() < deadline);
  return null;
}

async function readFrom(path: string, from: number): Promise<string> {
  try {
    const fh = await open(path, 'r');
    try {
      const { size } = await fh.stat();
      if (size <= from) return '';
      const buf = Buffer.alloc(size - from);
      await fh.read(buf, 0, buf.length, from);
      return buf.toString('utf8');
    } finally {
      await fh.close();
    }
  } catch {
    return '';
  }
}
