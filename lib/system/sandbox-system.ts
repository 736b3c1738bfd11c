/**
 * The sandbox system: every adapter plays the host inside `<dataDir>/system`, without root and
 * without the host programs (openssl only). `npm start` and the unit tests of every domain use it.
 *
 * Test levers (get them with `sandboxControls(system)`):
 *
 *   const sb = sandboxControls(system);
 *   sb.failNext('certs.issue', 'boom');            // next certs.issue rejects: SystemError('boom')
 *   sb.failNext('proxy.test', 'nginx: [emerg] x');  // next proxy.apply writes, "fails nginx -t", rolls back
 *   sb.failNext('tunnelServer.setAllowedPorts');     // chisel reconfiguration fails once
 *   sb.failNext('authPortal.restart', 'no', 2);      // the next two restarts fail
 *   sb.failNext('dns.resolve4', 'SERVFAIL');         // the resolver itself errors
 *   sb.setDns('example.com', ['203.0.113.7']);       // example.com and *.example.com resolve
 *   sb.setDns('bad.example.com', []);                // ...except this one (and its subdomains)
 *   sb.setDns('example.com', null);                  // drop the record again
 *   sb.eventsOf('authPortal.restart').length;        // what happened: proxy.reload, certs.issue, ...
 *   sb.setServiceStatus('tunnel-server', 'failed');  // a unit's observed state
 *   sb.appendLog('proxy', 'a line');                 // feeds services.follow('proxy')
 *   sb.clearFailures();
 *
 * Any `<adapter>.<method>` of System is a failure point, plus `proxy.test`. Injected failures are
 * SystemErrors with code 'injected'. Methods that return synchronously (SYNC_LIST below, checked
 * against the adapters' types) throw instead of rejecting.
 *
 * DNS without an explicit record asks `ctx.sandboxDns` (see `hostIpResolver` in ../context.ts:
 * the configured domain and its subdomains resolve to the host ip), else does not resolve.
 */
import { systemClock } from '../clock.ts';
import type { SystemConfig } from './config.ts';
import type { SystemContext } from './context.ts';
import { createSiteStorage } from './site-storage/site-storage.ts';
import { createStats } from './stats/stats.ts';
import { systemPki } from './pki/openssl-pki.ts';
import { opensslServerCerts } from './pki/self-signed.ts';
import type { System } from './types.ts';
import { createSandboxAuthPortal } from './auth-portal/sandbox.ts';
import { createSandboxCerts } from './certs/sandbox.ts';
import { SandboxControls, type FailurePoint } from './sandbox/controls.ts';
import { createSandboxDns } from './dns/sandbox.ts';
import { sandboxPaths } from './sandbox/paths.ts';
import { createSandboxProxy } from './proxy/sandbox.ts';
import { createSandboxServices } from './services/sandbox.ts';
import { createSandboxTunnelServer } from './tunnel-server/sandbox.ts';
import { createSandboxPackages } from './packages/sandbox.ts';
import { createSandboxStreams } from './streams/sandbox.ts';

export { SandboxControls, type FailurePoint, type SandboxEvent } from './sandbox/controls.ts';
export { sandboxPaths } from './sandbox/paths.ts';

const controlsOf = new WeakMap<System, SandboxControls>();

/** `adapter.method` of every method of System that does not answer with a promise. */
type SyncPoint = {
  [A in keyof System]: {
    [M in keyof System[A] & string]: System[A][M] extends (...args: never[]) => infer R ? (R extends PromiseLike<unknown> ? never : `${A}.${M}`) : never;
  }[keyof System[A] & string];
}[keyof System];

// An injected failure must be thrown by these and rejected by the rest. The list is checked against
// the adapters' types both ways: a name that is not a synchronous method, or one missing, fails tsc.
const SYNC_LIST = ['proxy.vhostName', 'proxy.deferLook', 'certs.paths', 'certs.changes', 'services.follow', 'siteStorage.dirOf'] as const satisfies readonly SyncPoint[];
type Unlisted = Exclude<SyncPoint, (typeof SYNC_LIST)[number]>;
const everySyncMethodListed: [Unlisted] extends [never] ? true : Unlisted = true;
void everySyncMethodListed;
const SYNC_METHODS = new Set<string>(SYNC_LIST);

export function createSandboxSystem(config: SystemConfig, ctx: SystemContext): System {
  const clock = ctx.clock ?? systemClock;
  const now = () => clock.now();
  const controls = new SandboxControls(now, config.sandbox.dns);
  const pki = ctx.sandboxPki ?? systemPki(config, sandboxPaths(ctx.dataDir).pki);
  const serverCerts = ctx.sandboxServerCerts ?? opensslServerCerts;
  const certs = createSandboxCerts(config, ctx.dataDir, controls, now, serverCerts);
  const proxy = createSandboxProxy(config, ctx.dataDir, controls, { certs, pki, publicLocations: ctx.publicLocations, serverCerts });
  const raw: System = {
    proxy,
    certs,
    tunnelServer: createSandboxTunnelServer(ctx.dataDir, controls, ctx.sandboxSockets),
    authPortal: createSandboxAuthPortal(config, ctx.dataDir, controls),
    services: createSandboxServices(config, controls, clock, ctx),
    dns: createSandboxDns(controls, ctx.sandboxDns),
    stats: createStats({ now, sampleGapMs: ctx.sandboxStatsSampleGapMs }),
    pki,
    siteStorage: createSiteStorage(sandboxPaths(ctx.dataDir).sites),
    packages: createSandboxPackages(ctx.dataDir, controls),
    // a stream change's nginx test reads the vhosts too: after the start's look at them
    streams: createSandboxStreams(config, ctx.dataDir, controls, () => proxy.lookNow()),
  };
  const system = {} as Record<keyof System, unknown>;
  for (const key of Object.keys(raw) as Array<keyof System>) system[key] = withFailureHooks(key, raw[key], controls);
  const result = system as unknown as System;
  controlsOf.set(result, controls);
  ctx.log?.(`sandbox system in ${sandboxPaths(ctx.dataDir).root}`);
  return result;
}

/** The test levers of a sandbox system; throws for a host system. */
export function sandboxControls(system: System): SandboxControls {
  const controls = controlsOf.get(system);
  if (!controls) throw new Error('not a sandbox system');
  return controls;
}

function withFailureHooks<T extends object>(adapter: string, target: T, controls: SandboxControls): T {
  // class instances (VhostStore, OpensslPki) keep their methods on the prototype chain
  const names = new Set(Object.keys(target));
  for (let proto = Object.getPrototypeOf(target) as object | null; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto) as object | null) {
    for (const name of Object.getOwnPropertyNames(proto)) if (name !== 'constructor') names.add(name);
  }
  const wrapped = Object.create(null) as Record<string, unknown>;
  for (const name of names) {
    const value = (target as Record<string, unknown>)[name];
    if (typeof value !== 'function') {
      wrapped[name] = value;
      continue;
    }
    const point = `${adapter}.${name}` as FailurePoint;
    const fn = value as (...args: unknown[]) => unknown;
    wrapped[name] = SYNC_METHODS.has(point)
      ? (...args: unknown[]) => {
          controls.checkFailure(point);
          return fn.apply(target, args);
        }
      : async (...args: unknown[]) => {
          controls.checkFailure(point);
          return fn.apply(target, args);
        };
  }
  return wrapped as T;
}
