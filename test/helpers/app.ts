import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '../../lib/clock.ts';
import type { ConfigInput } from '../../lib/config.ts';
import type { App } from '../../lib/http/app.ts';
import type { AnyRoute } from '../../lib/http/route.ts';
import type { OnboardingOptions } from '../../lib/onboarding/service.ts';
import type { Mode, Runtime } from '../../lib/runtime.ts';
import { ADMIN_SERIAL, createTestApp } from '../../lib/testing.ts';

// The unit suites' view of lib/testing.ts: `call(method, path, { as, body })` with the callers the
// suites name, and `dir`/`close(keep)` for restart tests.

/** Who sends a request: the headers nginx would set for that certificate. */
export type Caller = 'admin' | 'none' | { agent: string; serial?: string } | { dn: string; serial?: string; verify?: string };

export interface TestAppOptions {
  mode?: Mode;
  config?: Partial<ConfigInput>;
  routes?: readonly AnyRoute[];
  clock?: Clock;
  onboarding?: OnboardingOptions;
  /** Reuse a directory (restart tests): state on disk there. */
  dir?: string;
  /** State on disk in a new temp directory, so a later app can reopen `dir`; in memory otherwise. */
  durable?: boolean;
  /**
   * `fake` (default) issues certificates without openssl; `openssl` for the suites that open what
   * the sandbox's real CA issues (PKCS#12, CRL, CSR signatures) or back up its files.
   */
  pki?: 'fake' | 'openssl';
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

export { ADMIN_SERIAL };

/** The serial `addAgent` registers for a label unless told otherwise, and an agent caller presents. */
export function agentSerial(label: string): string {
  return createHash('sha256').update(label).digest('hex').slice(0, 8).toUpperCase();
}

export function certificateHeaders(caller: Caller): Record<string, string> {
  if (caller === 'none') return { 'x-ssl-client-verify': 'NONE' };
  if (caller === 'admin') return { 'x-ssl-client-verify': 'SUCCESS', 'x-ssl-client-dn': 'CN=admin', 'x-ssl-client-serial': ADMIN_SERIAL };
  if ('agent' in caller) {
    return { 'x-ssl-client-verify': 'SUCCESS', 'x-ssl-client-dn': `CN=agent:${caller.agent}`, 'x-ssl-client-serial': caller.serial ?? agentSerial(caller.agent) };
  }
  return { 'x-ssl-client-verify': caller.verify ?? 'SUCCESS', 'x-ssl-client-dn': caller.dn, 'x-ssl-client-serial': caller.serial ?? 'B1' };
}

export async function makeTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dir = options.dir ?? (options.durable ? await mkdtemp(join(tmpdir(), 'relay-test-')) : undefined);
  const { durable: _, ...kitOptions } = options;
  const kit = await createTestApp({ ...kitOptions, dir });

  const request: TestApp['request'] = (method, path, { as = 'admin', body, headers = {} } = {}) => {
    const init: RequestInit = { method, headers: { ...certificateHeaders(as), ...headers } };
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
    }
    return kit.fetch(path, init);
  };
  return {
    app: kit.app,
    services: kit.services,
    dir: kit.dir,
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
      await kit.close({ keep });
      if (!keep && dir) await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Puts the config straight into COMPLETED with a domain, as after onboarding. */
export async function completeOnboarding(t: TestApp, domain = 'example.test', email = 'ops@example.test'): Promise<void> {
  await t.services.config.update({ domain, email, onboarding: { status: 'COMPLETED' } });
}

/** Registers an agent certificate in the registry with the given capabilities. */
export async function addAgent(t: TestApp, label: string, capabilities: string[], allowedSites: string[] = [], serial = agentSerial(label)): Promise<void> {
  const now = new Date().toISOString();
  await t.services.store.agents.update((agents) => {
    agents.push({ label, serial, capabilities, allowedSites, createdAt: now, expiresAt: null, revokedAt: null, enrollmentMethod: 'p12' as const });
  });
}
