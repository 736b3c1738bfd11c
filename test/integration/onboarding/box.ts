// A relay box for the onboarding integration tests: the loopback infrastructure, the fake
// programs, and the app in production mode listening on the port the panel vhost proxies to.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { callerHeaders, createTestApp, type TestApp } from '../../../lib/testing.ts';
import { serve } from '../../helpers/http-server.ts';
import { openStream, type StreamClient } from '../../helpers/provision-stream.ts';
import { startInfra, type Infra } from '../../infra/harness.ts';
import { startFakeHost, type FakeHost } from '../../infra/fake-host.ts';

export interface Box {
  infra: Infra;
  fakes: FakeHost;
  dir: string;
  t: TestApp;
  /** an admin request as nginx would forward it, straight to the app's listener */
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** the provisioning stream, once its first `state` message arrived (so it sees a run started next) */
  openStream(): Promise<StreamClient>;
  close(): Promise<void>;
}

export async function startBox(): Promise<Box> {
  const infra = await startInfra();
  const dir = await mkdtemp(join(tmpdir(), 'relay-onboarding-it-'));
  // the installer already runs nginx and the panel
  const fakes = await startFakeHost(dir, ['nginx', 'relay-panel']);
  const t = await createTestApp({ config: { ip: '127.0.0.1', system: infra.systemConfig(fakes.config) } });
  const panel = await serve(t.app, infra.ports.panel);

  return {
    infra,
    fakes,
    dir,
    t,
    async call(method, path, body) {
      const headers: Record<string, string> = { ...callerHeaders('admin') };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const r = await fetch(`${panel.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: r.status, body: await r.json() };
    },
    async openStream() {
      const stream = await openStream(panel.port);
      await stream.waitFor((m) => m.type === 'state');
      return stream;
    },
    async close() {
      await panel.close();
      await t.close();
      await fakes.close();
      await infra.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
