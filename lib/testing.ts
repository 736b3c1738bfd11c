// The testing kit: a whole panel (or a few of its routes) as a fetch function, for our unit tests
// and for integrators who reuse the handlers. State lives in memory, the host is the sandbox system
// with a fake PKI (no openssl), and `as`/`headers` give the headers nginx would set for a client
// certificate. The panel is built by lib/compose.ts, as the server builds its own, and started.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { routes as allRoutes } from '../handlers/index.ts';
import { systemClock, type Clock } from './clock.ts';
import { ConfigStore, type ConfigInput } from './config.ts';
import { composePanel } from './compose.ts';
import type { App } from './http/app.ts';
import { pluginRoutes } from './http/plugin-host.ts';
import { useResponseClass } from './http/responses.ts';
import type { RouteEntry } from './http/lazy-route.ts';
import { silentLogger } from './log.ts';
import type { OnboardingOptions } from './onboarding/service.ts';
import type { Mode, Runtime, RuntimeDeps } from './runtime.ts';
import { openStore } from './state/store.ts';
import { skipSyncUnder } from './state/unsynced-dirs.ts';
import { createFakePki, createFakeServerCerts, type FakePki } from './system/pki/fake-pki.ts';
import { SocketTable } from './system/sandbox/socket-table.ts';
import { ADMIN_SERIAL, AgentSerials, callerHeaders, certificateHeaders, type Caller, type CertificateHeaders } from './testing-callers.ts';

export { ADMIN_SERIAL, callerHeaders, certificateHeaders, type Caller, type CertificateHeaders };

export interface Seed {
  /** Onboarding already COMPLETED for this domain (default example.test), so management routes answer. */
  onboarded?: boolean | { domain: string; email?: string };
  /** Agents in the registry, with their capabilities (and allowedSites). */
  agents?: { label: string; capabilities: string[]; allowedSites?: string[] }[];
}

export interface TestAppOptions {
  /** Defaults to every route of handlers/index.ts, loaded (handlers/start-table.ts loads each on first use, as a server does). */
  routes?: readonly RouteEntry[];
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
  /** Keep the configuration and the store on disk in a new directory of the kit's, which a later kit can be given as `dir`. */
  durable?: boolean;
  /**
   * `fake` (default): client and server certificates without openssl. `openssl`: the sandbox's real
   * openssl CA and server certificates, for tests that open what they are (PKCS#12, CSR signatures,
   * the CRL, X.509 files).
   */
  pki?: 'fake' | 'openssl';
  /** The ticket limits (stored tickets, requests per agent per minute), lifted for load measurements. */
  ticketLimits?: RuntimeDeps['ticketLimits'];
  /**
   * Sync the files written in the kit's directory to disk. Off by default in a directory the kit
   * makes and removes at `close()` (no `dir`, not `durable`): nothing reads it after a crash, so
   * the syncs are only CPU spent. On with `dir` or `durable`, or when true.
   */
  fsync?: boolean;
  /**
   * How long audit entries wait to share one synchronized write, on disk (`dir`, `durable`): 0
   * unless given, where the server waits 20 ms, which every audit read and `close()` waited out.
   */
  auditCommitWindowMs?: number;
  /**
   * `kit` (default): a tunnel client's session and a port a program holds are what `sockets.hold`
   * puts in the kit's own table. `kernel`: this machine's socket tables, as the sandbox reads them
   * (a test's real listener on loopback), for tests of that reading.
   */
  sockets?: 'kit' | 'kernel';
}

/** What `request` and `call` send besides the method and path. */
export interface RequestOptions {
  /** Whose certificate the request carries; admin unless told. */
  as?: Caller;
  /** Sent as JSON (a string as it is), with `content-type: application/json` unless `headers` name one. */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface TestApp {
  app: App;
  services: Runtime;
  /** The fake PKI the sandbox system uses (lib/system/pki/fake-pki.ts); absent with `pki: 'openssl'`. */
  pki: FakePki | undefined;
  /** Where the sandbox system keeps its files (and the state, with the `dir` option). */
  dir: string;
  /** The sockets the sandbox sees (a client's session on a tunnel port, a program on a public port); absent with `sockets: 'kernel'`. */
  sockets: SocketTable | undefined;
  /** `app.fetch`; a path is resolved against http://panel.test. */
  fetch(input: string | Request, init?: RequestInit): Promise<Response>;
  as: {
    admin(): CertificateHeaders;
    /** With capabilities, the agent is (re)registered with them first; without, only the headers. */
    agent(label: string, capabilities?: string[]): CertificateHeaders;
    /** No client certificate. */
    none(): CertificateHeaders;
  };
  /** The headers of any caller; an agent without a serial presents `agentSerial(label)`. */
  headers(caller: Caller): CertificateHeaders;
  /** The serial of this kit's certificate for an agent label: counted in hex from 2000 in the order labels are first named. */
  agentSerial(label: string): string;
  /** Registers (or replaces) an agent with these capabilities; resolves once written. */
  addAgent(label: string, capabilities: string[], allowedSites?: string[], serial?: string): Promise<void>;
  /** Puts the configuration straight into COMPLETED with a domain, as after onboarding. */
  completeOnboarding(domain?: string, email?: string): Promise<void>;
  /** `fetch` with a caller's certificate headers and a JSON body. */
  request(method: string, path: string, options?: RequestOptions): Promise<Response>;
  /** `request` plus the answer's body, parsed when it is JSON. */
  call<T = any>(method: string, path: string, options?: RequestOptions): Promise<{ status: number; body: T; response: Response }>;
  /**
   * Mounts a plugin's server module as enabling it would (its routes checked, admin-only unless a
   * route names one of `capabilities`), without npm: for plugin authors' tests.
   */
  mountPlugin(plugin: { name: string; module: unknown; capabilities?: string[]; panel?: Uint8Array<ArrayBuffer> }): void;
  /** Stops timers and sockets; removes the directory unless `keep` or someone else's (given as `dir` and not made by a kit). */
  close(options?: { keep?: boolean }): Promise<void>;
}

/**
 * The Request class kits send with, and whether they answer the app's own Responses: the runtime's
 * Request and `app.fetch`'s standard Responses unless `useFetchClasses` named others.
 */
let kitRequest: typeof globalThis.Request | undefined;

/**
 * Kits in this process send requests of this Request class and answer with Responses of this class
 * (installed for every app, as the Node edge installs its own), not converted to the runtime's. The
 * unit suite gives @whatwg-node/fetch's, the classes the served panel's handlers see: node's own
 * (undici) cost about 0.1 ms of CPU more per request, most of it the streams they make for a body.
 */
export function useFetchClasses(classes: { Request: typeof globalThis.Request; Response: typeof globalThis.Response }): void {
  kitRequest = classes.Request;
  useResponseClass(classes.Response);
}

/** Directories a kit made (`durable`, or for the sandbox files): whichever kit closes last without `keep` removes one. */
const madeByKit = new Set<string>();

function defaultConfig(dir: string, options: TestAppOptions): ConfigInput {
  return {
    ip: '203.0.113.10',
    domain: null,
    email: null,
    dataDir: join(dir, 'data'),
    onboarding: { status: 'FRESH' },
    system: { driver: 'sandbox' },
    // made here, as the store would make it on opening: one validated update fewer per kit
    sessionSecret: randomBytes(32).toString('hex'),
    ...options.config,
  };
}

async function openConfig(dir: string, options: TestAppOptions): Promise<ConfigStore> {
  if (!options.dir && !options.durable) return ConfigStore.inMemory(defaultConfig(dir, options));
  const file = join(dir, 'config.json');
  return existsSync(file) ? ConfigStore.open(file) : ConfigStore.create(file, defaultConfig(dir, options));
}

// The kit's own directory is made and removed by the synchronous calls: a few system calls on a
// directory of a few entries, where the promise forms went through the thread pool and back (and
// the recursive rm through a walk of promise calls: 0.15 ms of CPU against 0.04 for rmSync).
export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'relay-kit-'));
  if (!options.dir) madeByKit.add(dir);
  const onDisk = options.dir !== undefined || options.durable === true;
  const syncAgain = (options.fsync ?? onDisk) ? () => {} : skipSyncUnder(dir);
  // a kit that fails to come up leaves neither its directory nor the skip of its syncs behind
  const notBuilt = async (error: unknown): Promise<never> => {
    syncAgain();
    if (madeByKit.delete(dir)) rmSync(dir, { recursive: true, force: true });
    throw error;
  };
  const config = await openConfig(dir, options).catch(notBuilt);
  const log = silentLogger();
  const store = await openStore(config.value.dataDir, { persistence: onDisk ? 'disk' : 'memory', log }).catch(notBuilt);
  // the store keeps nothing there, but the sandbox host and the certificate bundles do
  mkdirSync(config.value.dataDir, { recursive: true, mode: 0o700 });
  const routes = options.routes ?? allRoutes;
  // one clock for the app and the host it drives: a manual one moves certificate expiry and unit uptimes too
  const clock = options.clock ?? systemClock;
  const now = () => clock.now();
  const pki = options.pki === 'openssl' ? undefined : createFakePki(join(store.dataDir, 'system', 'fake-pki'), now);
  // the kernel's tables cost kernel time per read that grows with the machine's sockets, and list other programs'
  const sockets = options.sockets === 'kernel' ? undefined : new SocketTable();
  const panel = composePanel({
    mode: options.mode ?? 'production',
    config,
    store,
    clock,
    log,
    routes,
    // a CPU figure waits its sample gap in real time: a tenth of the server's 100 ms is enough for a test
    systemExtras: { sandboxStatsSampleGapMs: 10, sandboxSockets: sockets, ...(pki ? { sandboxPki: pki, sandboxServerCerts: createFakeServerCerts(now) } : {}) },
    onboarding: options.onboarding,
    ticketLimits: options.ticketLimits,
    auditCommitWindowMs: options.auditCommitWindowMs ?? 0,
  });
  const { app, services } = panel;
  await panel.start().catch(notBuilt);

  const serials = new AgentSerials();
  // Registrations change the registry at once (updates apply synchronously); their writes are
  // awaited before the next request, so a failure surfaces there.
  let registered: Promise<unknown> = Promise.resolve();
  const register = (label: string, capabilities: string[], allowedSites: string[] = []): Promise<void> => {
    const serial = serials.of(label);
    const write = store.agents.update((agents) => {
      const record = { label, serial, capabilities, allowedSites, createdAt: new Date(services.clock.now()).toISOString(), expiresAt: null, revokedAt: null, enrollmentMethod: 'p12' as const };
      const at = agents.findIndex((a) => a.label === label);
      if (at >= 0) agents[at] = record;
      else agents.push(record);
    });
    registered = Promise.all([registered, write]);
    return write;
  };
  const completeOnboarding = (domain = 'example.test', email = `ops@${domain}`) => config.update({ domain, email, onboarding: { status: 'COMPLETED' } });
  const headers = (caller: Caller) => callerHeaders(caller, (label) => serials.of(label));
  const fetch = async (input: string | Request, init?: RequestInit) => {
    await registered;
    if (!kitRequest) return app.fetch(new Request(typeof input === 'string' ? new URL(input, 'http://panel.test') : input, init));
    return app.handle(new kitRequest(typeof input === 'string' ? new URL(input, 'http://panel.test').href : input, init));
  };
  const request = (method: string, path: string, { as = 'admin', body, headers: extra = {} }: RequestOptions = {}) => {
    const sent: Record<string, string> = { ...headers(as), ...extra };
    if (body !== undefined) sent['content-type'] ??= 'application/json';
    return fetch(path, { method, headers: sent, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  };

  const { onboarded, agents = [] } = options.seed ?? {};
  if (onboarded) {
    const { domain, email } = onboarded === true ? { domain: 'example.test', email: undefined } : onboarded;
    await completeOnboarding(domain, email);
  }
  for (const agent of agents) register(agent.label, agent.capabilities, agent.allowedSites);
  await registered;

  return {
    app,
    services,
    pki,
    dir,
    sockets,
    fetch,
    as: {
      admin: () => headers('admin'),
      agent(label, capabilities) {
        if (capabilities) void register(label, capabilities);
        return headers({ agent: label });
      },
      none: () => headers('none'),
    },
    headers,
    agentSerial: (label) => serials.of(label),
    async addAgent(label, capabilities, allowedSites = [], serial) {
      if (serial !== undefined) serials.set(label, serial);
      await register(label, capabilities, allowedSites);
    },
    async completeOnboarding(domain, email) {
      await completeOnboarding(domain, email);
    },
    request,
    async call(method, path, options) {
      const response = await request(method, path, options);
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: the text as it is
      }
      return { status: response.status, body: body as any, response };
    },
    mountPlugin: ({ name, module, capabilities = [], panel }) => app.mount(name, pluginRoutes({ name, module, capabilities, panel: panel ?? null })),
    async close({ keep = false } = {}) {
      await app.close();
      syncAgain();
      if (keep || !madeByKit.has(dir)) return;
      madeByKit.delete(dir);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
