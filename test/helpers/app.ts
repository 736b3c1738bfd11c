import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { routes as allRoutes } from '../../handlers/index.ts';
import type { Clock } from '../../lib/clock.ts';
import { ConfigStore, type ConfigInput } from '../../lib/config.ts';
import { createApp, type App } from '../../lib/http/app.ts';
import type { AnyRoute } from '../../lib/http/route.ts';
import { silentLogger } from '../../lib/log.ts';
import { createClientFiles } from '../../lib/node/client-files.ts';
import { createRuntime, type Runtime, type Mode } from '../../lib/runtime.ts';
import { openStore } from '../../lib/state/store.ts';
import { createSystem, hostIpResolver } from '../../lib/system/index.ts';

/** Who sends a request: the headers nginx would set for that certificate. */
export type Caller = 'admin' | 'none' | { agent: string; serial?: string } | { dn: string; serial?: string; verify?: string };

export interface TestAppOptions {
  mode?: Mode;
  config?: Partial<ConfigInput>;
  routes?: readonly AnyRoute[];
  clock?: Clock;
  /** Reuse a directory (restart tests); a new temp directory otherwise. */
  dir?: string;
}

export interface TestApp {
  app: App;
  services: Runtime;
  dir: string;
  request(method: string, path: string, options?: { as?: Caller; body?: unknown; headers?: Record<string, string> }): Promise<Response>;
  /** `request` plus the parsed JSON body. */
  call<T = any>(method: string, path: string, options?: { as?: Caller; body?: unknown; headers?: Record<string, string> }): Promise<{ status: number; body: T; response: Response }>;
  /** Closes the app; removes the directory unless `keep`. */
  close(keep?: boolean): Promise<void>;
}

export const ADMIN_SERIAL = '1000';

export function certificateHeaders(caller: Caller): Record<string, string> {
  if (caller === 'none') return { 'x-ssl-client-verify': 'NONE' };
  if (caller === 'admin') return { 'x-ssl-client-verify': 'SUCCESS', 'x-ssl-client-dn': 'CN=admin', 'x-ssl-client-serial': ADMIN_SERIAL };
  if ('agent' in caller) {
    return { 'x-ssl-client-verify': 'SUCCESS', 'x-ssl-client-dn': `CN=agent:${caller.agent}`, 'x-ssl-client-serial': caller.serial ?? 'A1' };
  }
  return { 'x-ssl-client-verify': caller.verify ?? 'SUCCESS', 'x-ssl-client-dn': caller.dn, 'x-ssl-client-serial': caller.serial ?? 'B1' };
}

export async function makeTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'relay-test-')));
  const configFile = join(dir, 'config.json');
  const config = options.dir
    ? await ConfigStore.open(configFile)
    : await ConfigStore.create(configFile, {
        ip: '203.0.113.10',
        domain: null,
        email: null,
        dataDir: join(dir, 'data'),
        onboarding: { status: 'FRESH' },
        system: { driver: 'sandbox' },
        ...options.config,
      });
  const store = await openStore(config.value.dataDir);
  const system = createSystem(config.value.system, { dataDir: store.dataDir, sandboxDns: hostIpResolver(() => config.value) });
  const services = createRuntime({ mode: options.mode ?? 'production', config, store, system, clock: options.clock, log: silentLogger() });
  const app = createApp(services, options.routes ?? allRoutes, { clientFiles: createClientFiles(() => config.value.staticDir) });

  const request: TestApp['request'] = (method, path, { as = 'admin', body, headers = {} } = {}) => {
    const init: RequestInit = { method, headers: { ...certificateHeaders(as), ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
    }
    return app.fetch(new Request(`http://panel.test${path}`, init));
  };
  return {
    app,
    services,
    dir,
    request,
    async call(method, path, opts) {
      const response = await request(method, path, opts);
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* not JSON: keep the text */
      }
      return { status: response.status, body: body as any, response };
    },
    async close(keep = false) {
      await app.close();
      if (!keep) await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Puts the config straight into COMPLETED with a domain, as after onboarding. */
export async function completeOnboarding(t: TestApp, domain = 'example.test', email = 'ops@example.test'): Promise<void> {
  await t.services.config.update({ domain, email, onboarding: { status: 'COMPLETED' } });
}

/** Registers an agent certificate in the registry with the given capabilities. */
export async function addAgent(t: TestApp, label: string, capabilities: string[], allowedSites: string[] = [], serial = `A${label.length}`): Promise<void> {
  const now = new Date().toISOString();
  await t.services.store.agents.update((agents) => {
    agents.push({ label, serial, capabilities, allowedSites, createdAt: now, expiresAt: null, revokedAt: null });
  });
}
