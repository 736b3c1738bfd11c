// A VhostStore over a temporary directory with the real templates and an nginx test the caller can
// make fail once: for the store's own tests (batches, shared tunnels' routes).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { renderVhost } from '../../lib/system/proxy/templates.ts';
import { VhostStore } from '../../lib/system/proxy/vhost-store.ts';
import { SAMPLE_TEMPLATE_CONTEXT } from './template-context.ts';

export interface VhostBox {
  dir: string;
  proxy: VhostStore;
  /** the next nginx test fails with this */
  failTest: string | null;
  remove(): Promise<void>;
}

export async function vhostBox(prefix: string): Promise<VhostBox> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const box: VhostBox = { dir, failTest: null, proxy: undefined as unknown as VhostStore, remove: () => rm(dir, { recursive: true, force: true }) };
  box.proxy = new VhostStore({
    availableDir: join(dir, 'available'),
    enabledDir: join(dir, 'enabled'),
    routesDir: join(dir, 'routes'),
    render: async (spec) => renderVhost(spec, SAMPLE_TEMPLATE_CONTEXT),
    test: async () => {
      const failure = box.failTest;
      box.failTest = null;
      if (failure) throw new Error(failure);
    },
    reload: async () => undefined,
  });
  return box;
}
