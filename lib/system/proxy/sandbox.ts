// Sandbox proxy: the real templates, written under dataDir; the configuration test is simulated
// (or real `nginx -t` when `sandbox.nginxTest` is on) and a reload is only recorded.
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import type { SystemConfig } from '../config.ts';
import { programFailure, run } from '../common/exec.ts';
import { relocatableVhostFingerprinter } from './fingerprint.ts';
import { createVhostRenderer, systemRendererOptions } from './renderer.ts';
import { VHOST_STAMPS_FILE, VhostStamps } from './vhost-stamps.ts';
import { nginxDiagnosis, VhostStore } from './vhost-store.ts';
import type { ServerCertMaker } from '../pki/self-signed.ts';
import type { CertsAdapter, PkiAdapter, ProxyAdapter, PublicLocations } from '../types.ts';
import type { SandboxControls } from '../sandbox/controls.ts';
import { sandboxPaths } from '../sandbox/paths.ts';

export function createSandboxProxy(
  config: SystemConfig,
  dataDir: string,
  controls: SandboxControls,
  deps: { certs: CertsAdapter; pki: PkiAdapter; publicLocations?: PublicLocations; serverCerts: ServerCertMaker },
): ProxyAdapter {
  const p = sandboxPaths(dataDir);
  const options = systemRendererOptions(config, {
    listenAddress: '127.0.0.1',
    acmeWebroot: p.acmeWebroot,
    helpDir: p.nginxHelp,
    selfSignedDir: p.selfSigned,
    routesDir: p.routes,
    sniDir: p.sni,
  }, deps);
  return new VhostStore({
    availableDir: p.sitesAvailable,
    enabledDir: p.sitesEnabled,
    routesDir: p.routes,
    render: createVhostRenderer(options),
    stamps: new VhostStamps(join(dataDir, VHOST_STAMPS_FILE), relocatableVhostFingerprinter(options, p.pki, dataDir)),
    async test() {
      controls.checkFailure('proxy.test');
      if (config.sandbox.nginxTest) await realNginxTest(config, p.sitesEnabled);
      controls.record('proxy.test');
    },
    async reload() {
      controls.record('proxy.reload');
      controls.appendLog('proxy', 'nginx: configuration reloaded');
    },
  });
}

/** `nginx -t` of the sandbox vhosts inside a throwaway prefix, so no system path is touched. */
async function realNginxTest(config: SystemConfig, sitesEnabled: string): Promise<void> {
  const prefix = await mkdtemp(join(tmpdir(), 'relay-nginx-test-'));
  try {
    for (const d of ['logs', 'tmp']) await mkdir(join(prefix, d), { recursive: true });
    await writeFile(
      join(prefix, 'nginx.conf'),
      `pid logs/nginx.pid;\nerror_log logs/error.log;\nevents {}\nhttp {\n  client_body_temp_path tmp/cb; proxy_temp_path tmp/p; fastcgi_temp_path tmp/f; uwsgi_temp_path tmp/u; scgi_temp_path tmp/s;\n  include "${sitesEnabled}/*.conf";\n}\n`,
    );
    await run(config.binaries.nginx, ['-t', '-q', '-p', prefix, '-c', 'nginx.conf'], { timeoutMs: config.timeouts.defaultMs });
  } catch (e) {
    throw programFailure(e, 'nginx', 'nginx configuration test failed', nginxDiagnosis);
  } finally {
    await rm(prefix, { recursive: true, force: true });
  }
}
