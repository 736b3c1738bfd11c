// The testing kit: a whole panel (or a few of its routes) as a fetch function, for our unit tests
// and for integrators who reuse the handlers. State lives in memory, the host is the sandbox system
// with a fake PKI (no openssl), and `as` gives the headers nginx would set for a client certificate.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { routes as allRoutes } from '../handlers/index.ts';
import { systemClock, type Clock } from './clock.ts';
import { ConfigStore, type ConfigInput } from './config.ts';
import { composePanel } from './compose.ts';
import type { App } from './http/app.ts';
import { pluginRoutes } from './http/plugin-host.ts';
import type { AnyRoute } from './http/route.ts';
import { silentLogger } from './log.ts';
import type { OnboardingOptions } from './onboarding/service.ts';
import type { Mode, Runtime, RuntimeDeps } from './runtime.ts';
import { openStore } from './state/store.ts';
import { createFakePki, createFakeServerCerts, type FakePki } from './system/pki/fake-pki.ts';

export interface Seed {
  /** Onboarding already COMPLETED for this domain (default example.test), so management routes answer. */
  onboarded?: boolean | { domain: string; email?: string };
  /** Agents in the registry, with their capabilities (and allowedSites). */
  agents?: { label: string; capabilities: string[]; allowedSites?: string[] }[];
}

export interface TestAppOptions {
  /** Defaults to every route of handlers/index.ts. */
  routes?: readonly AnyRoute[];
  seed?: Seed;
  /** `production` (default) reads the certificate headers; `development` treats every caller as admin. */
  mode?: Mode;
  config?: Partial<ConfigInput>;
  clock?: Clock;
  /** Provisioning settings, for example a cheaper password hash than bcrypt cost 12. */
  onboarding?: OnboardingOptions;
  /**
   * Keep the configuration and the store on disk in this directory (`config.json`, `data/`), and
   * reopen them when they exist: for restart tests. Without it nothing but sandbox files is written.
   */
  dir?: string;
  /**
   * `fake` (default): client and server certificates without openssl. `openssl`: the sandbox's real
   * openssl CA and server certificates, for tests that open what they are (PKCS#12, CSR signatures,
   * the CRL, X.509 files).
   */
  pki?: 'fake' | 'openssl';
  /** The ticket limits (stored tickets, requests per agent per minute), lifted for load measurements. */
  ticketLimits?: RuntimeDeps['ticketLimits'];
}

/** Headers as nginx sets them (X-SSL-Client-*), for `fetch(path, { headers })`. */
export type CertificateHeaders = Record<string, string>;

export interface TestApp {
  app: App;
  services: Runtime;
  /** The fake PKI the sandbox system uses (lib/system/pki/fake-pki.ts); absent with `pki: 'openssl'`. */
  pki: FakePki | undefined;
  /** Where the sandbox system keeps its files (and the state, with the `dir` option). */
  dir: string;
  /** `app.fetch`; a path is resolved against http://panel.test. */
  fetch(input: string | Request, init?: RequestInit): Promise<Response>;
  as: {
    admin(): CertificateHeaders;
    /** With capabilities, the agent is (re)registered with them first; without, only the headers. */
    agent(label: string, capabilities?: string[]): CertificateHeaders;
    /** No client certificate. */
    none(): CertificateHeaders;
  };
  /**
   * Mounts a plugin's server module as enabling it would (its routes checked, admin-only unless a
   * route names one of `capabilities`), without npm: for plugin authors' tests.
   */
  mountPlugin(plugin: { name: string; module: unknown; capabilities?: string[]; panel?: Uint8Array<ArrayBuffer> }): void;
  /** Stops timers and sockets; removes the directory unless it was given or `keep`. */
  close(options?: { keep?: boolean }): Promise<void>;
}

// outside the sandbox CA's range (serials from 0x1000 up), so revoking issued certificates never hits it
export const ADMIN_SERIAL = 'AD0001';
const FIRST_AGENT_SERIAL = 0x2000;

/** What nginx passes on for a certificate of our CA with this common name and serial. */
export function certificateHeaders(commonName: string, serial: string): CertificateHeaders {
  return { 'x-ssl-client-verify': 'SUCCESS', 'x-ssl-client-dn': `CN=${commonName}`, 'x-ssl-client-serial': serial };
}

function defaultConfig(dir: string, options: TestAppOptions): ConfigInput {
  return {
    ip: '203.0.113.10',
    domain: null,
    email: null,
    dataDir: join(dir, 'data'),
    onboarding: { status: 'FRESH' },
    system: { driver: 'sandbox' },
    ...options.config,
  };
}

async function openConfig(dir: string, options: TestAppOptions): Promise<ConfigStore> {
  if (!options.dir) return ConfigStore.inMemory(defaultConfig(dir, options));
  const file = join(dir, 'config.json');
  return existsSync(file) ? ConfigStore.open(file) : ConfigStore.create(file, defaultConfig(dir, options));
}

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'relay-kit-')));
  const config = await openConfig(dir, options);
  const log = silentLogger();
  const store = await openStore(config.value.dataDir, { persistence: options.dir ? 'disk' : 'memory', log });
  // the store keeps nothing there, but the sandbox host and the certificate bundles do
  await mkdir(config.value.dataDir, { recursive: true, mode: 0o700 });
  const routes = options.routes ?? allRoutes;
  // one clock for the app and the host it drives: a manual one moves certificate expiry and unit uptimes too
  const clock = options.clock ?? systemClock;
  const now = () => clock.now();
  const pki = options.pki === 'openssl' ? undefined : createFakePki(join(store.dataDir, 'system', 'fake-pki'), now);
  const panel = composePanel({
    mode: options.mode ?? 'production',
    config,
    store,
    clock,
    log,
    routes,
    systemExtras: pki ? { sandboxPki: pki, sandboxServerCerts: createFakeServerCerts(now) } : {},
    onboarding: options.onboarding,
    ticketLimits: options.ticketLimits,
  });
  const { app, services } = panel;
  await panel.start();

  const serials = new Map<string, string>();
  const serialOf = (label: string) => {
    if (!serials.has(label)) serials.set(label, (FIRST_AGENT_SERIAL + serials.size).toString(16).toUpperCase());
    return serials.get(label)!;
  };
  // Registrations change the registry at once (updates apply synchronously); their writes are
  // awaited before the next request, so a failure surfaces there.
  let registered: Promise<unknown> = Promise.resolve();
  const register = (label: string, capabilities: string[], allowedSites: string[] = []) => {
    const serial = serialOf(label);
    const write = store.agents.update((agents) => {
      const record = { label, serial, capabilities, allowedSites, createdAt: new Date(services.clock.now()).toISOString(), expiresAt: null, revokedAt: null, enrollmentMethod: 'p12' as const };
      const at = agents.findIndex((a) => a.label === label);
      if (at >= 0) agents[at] = record;
      else agents.push(record);
    });
    registered = Promise.all([registered, write]);
  };

  const { onboarded, agents = [] } = options.seed ?? {};
  if (onboarded) {
    const { domain, email } = onboarded === true ? { domain: 'example.test', email: undefined } : onboarded;
    await config.update({ domain, email: email ?? `ops@${domain}`, onboarding: { status: 'COMPLETED' } });
  }
  for (const agent of agents) register(agent.label, agent.capabilities, agent.allowedSites);
  await registered;

  return {
    app,
    services,
    pki,
    dir,
    async fetch(input, init) {
      await registered;
      return app.fetch(new Request(typeof input === 'string' ? new URL(input, 'http://panel.test') : input, init));
    },
    as: {
      admin: () => certificateHeaders('admin', ADMIN_SERIAL),
      agent(label, capabilities) {
        if (capabilities) register(label, capabilities);
        return certificateHeaders(`agent:${label}`, serialOf(label));
      },
      none: () => ({ 'x-ssl-client-verify': 'NONE' }),
    },
    mountPlugin: ({ name, module, capabilities = [], panel }) => app.mount(name, pluginRoutes({ name, module, capabilities, panel: panel ?? null })),
    async close({ keep = false } = {}) {
      await app.close();
      if (!keep && !options.dir) await rm(dir, { recursive: true, force: true });
    },
  };
}
