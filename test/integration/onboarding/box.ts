// A relay box for the onboarding integration tests: the loopback infrastructure, the fake
// programs, and the app in production mode listening on the port the panel vhost proxies to.
import { createServer, type Server } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { nodeRequestListener } from '../../../lib/http/node-listener.ts';
import type { StreamMessage } from '../../../lib/onboarding/events.ts';
import { certificateHeaders, makeTestApp, type TestApp } from '../../helpers/app.ts';
import { startInfra, type Infra } from '../../infra/harness.ts';
import { startFakeHost, type FakeHost } from '../../infra/fake-host.ts';

export interface Box {
  infra: Infra;
  fakes: FakeHost;
  dir: string;
  t: TestApp;
  /** an admin request as nginx would forward it, straight to the app's listener */
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** messages of the provisioning stream until one matches `until` or the server closes it */
  followStream(until?: (m: StreamMessage) => boolean): Promise<StreamMessage[]>;
  close(): Promise<void>;
}

export async function startBox(): Promise<Box> {
  const infra = await startInfra();
  const dir = await mkdtemp(join(tmpdir(), 'relay-onboarding-it-'));
  // the installer already runs nginx and the panel
  const fakes = await startFakeHost(dir, ['nginx', 'relay-panel']);
  const t = await makeTestApp({ config: { ip: '127.0.0.1', system: infra.systemConfig(fakes.config) } });
  const panel: Server = createServer(nodeRequestListener(t.app));
  panel.on('upgrade', (request, socket, head) => void t.app.handleUpgrade(request, socket, head));
  await new Promise<void>((ok) => panel.listen(infra.ports.panel, '127.0.0.1', () => ok()));
  const base = `http://127.0.0.1:${infra.ports.panel}`;

  return {
    infra,
    fakes,
    dir,
    t,
    async call(method, path, body) {
      const headers: Record<string, string> = { ...certificateHeaders('admin') };
      if (body !== undefined) headers['content-type'] = 'application/json';
      const r = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: r.status, body: await r.json() };
    },
    followStream(until = () => false) {
      return new Promise((resolve, reject) => {
        const messages: StreamMessage[] = [];
        const ws = new WebSocket(`ws://127.0.0.1:${infra.ports.panel}/api/onboarding/provision/stream`, { headers: certificateHeaders('admin') });
        ws.on('message', (data) => {
          const message = JSON.parse(String(data)) as StreamMessage;
          messages.push(message);
          if (until(message)) ws.close();
        });
        ws.on('close', () => resolve(messages));
        ws.on('error', reject);
      });
    },
    async close() {
      panel.closeAllConnections();
      await new Promise((ok) => panel.close(ok));
      await t.close();
      await fakes.close();
      await infra.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
