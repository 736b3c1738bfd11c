// The panel's bundle behind the loopback nginx front, as the e2e tests run it: built into
// <infra>/panel, configured for a domain and an onboarding status, in production mode on the port
// the front proxies to.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
// @ts-expect-error plain JS build script
import { bundle } from '../../build/build.mjs';
import type { Infra } from './harness.ts';
import { startPanelBundle, waitFor, type Managed } from './processes.ts';

export interface PanelBehindFrontOptions {
  domain: string;
  onboarding: 'DNS_READY' | 'COMPLETED';
  /** /api/health through the front (the test's own vhost and client certificate). */
  health: () => Promise<{ status: number }>;
  /** Seeds the data directory before the panel starts. */
  seed?: (dataDir: string) => Promise<void>;
}

/** Resolves once /api/health answers 200 through the front. */
export async function startPanelBehindFront(infra: Infra, options: PanelBehindFrontOptions): Promise<{ panel: Managed; dataDir: string }> {
  const dir = join(infra.dir, 'panel');
  const dataDir = join(dir, 'data');
  await mkdir(dataDir, { recursive: true });
  const outfile = join(dir, 'server.mjs');
  await bundle({ outfile, quiet: true });
  await options.seed?.(dataDir);
  await writeFile(join(dir, 'config.json'), JSON.stringify({
    ip: '127.0.0.1', domain: options.domain, email: `ops@${options.domain}`, dataDir,
    onboarding: { status: options.onboarding }, listen: { host: '127.0.0.1', port: infra.ports.panel },
  }));
  const panel = startPanelBundle(outfile, join(dir, 'config.json'), join(infra.dir, 'panel.log'));
  await waitFor('panel through nginx', async () => (await options.health().catch(() => ({ status: 0 }))).status === 200, panel, 15_000);
  return { panel, dataDir };
}
