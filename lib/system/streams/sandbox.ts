// Sandbox stream proxy: the real rendering, files under dataDir; the test and the reload are recorded.
import { join } from 'node:path';
import type { SystemConfig } from '../config.ts';
import type { SandboxControls } from '../sandbox/controls.ts';
import { sandboxPaths } from '../sandbox/paths.ts';
import { renderStreamServer } from './render.ts';
import { StreamStore } from './store.ts';
import type { StreamProxyAdapter } from './types.ts';

/** `beforeChange`: StreamStoreOptions'. */
export function createSandboxStreams(config: SystemConfig, dataDir: string, controls: SandboxControls, beforeChange?: () => Promise<unknown>): StreamProxyAdapter {
  const ctx = { listenAddress: '127.0.0.1', trafficPort: config.nginx.trafficPort };
  return new StreamStore({
    dir: join(sandboxPaths(dataDir).root, 'nginx', 'streams'),
    render: (spec) => renderStreamServer(spec, ctx),
    async test() {
      controls.record('streams.test');
    },
    async reload() {
      controls.record('streams.reload');
      controls.appendLog('proxy', 'nginx: configuration reloaded (stream servers)');
    },
    beforeChange,
  });
}
