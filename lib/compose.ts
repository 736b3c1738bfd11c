// The one place a panel is assembled: host adapters, runtime, app and plugins from a configuration,
// a store, a clock and a log. The server (lib/main.ts), the testing kit (lib/testing.ts) and the
// restore command (lib/backup-commands.ts) all build through it; only what they pass differs.
import { auditRequests } from './audit/request-audit.ts';
import type { Clock } from './clock.ts';
import type { ConfigStore } from './config.ts';
import { createApp, type App } from './http/app.ts';
import { pluginHost } from './http/plugin-host.ts';
import { publicLocations } from './http/public-locations.ts';
import type { RouteEntry } from './http/lazy-route.ts';
import type { Logger } from './log.ts';
import { createClientFiles } from './node/client-files.ts';
import type { OnboardingOptions } from './onboarding/service.ts';
import { createRuntime, type Mode, type Runtime, type RuntimeDeps } from './runtime.ts';
import type { Store } from './state/store.ts';
import type { SystemContext } from './system/context.ts';
import { createSystem, hostIpResolver, type System } from './system/index.ts';
import { liveSocketsOf } from './tunnels/streams/context.ts';

export interface PanelParts {
  mode: Mode;
  config: ConfigStore;
  store: Store;
  clock: Clock;
  log: Logger;
  routes: readonly RouteEntry[];
  /** The host adapters; built from `config.value.system` when absent. */
  system?: System;
  /**
   * What the built system gets besides the data dir, the clock, the log, the routes' public
   * locations and the sandbox's DNS: the server's live journal of its own log, the kit's fake PKI,
   * the running panel's `nginx-reload` for certbot's deploy hook.
   */
  systemExtras?: Pick<SystemContext, 'panelLog' | 'madeUpLogsEveryMs' | 'sandboxPki' | 'sandboxServerCerts' | 'sandboxStatsSampleGapMs' | 'sandboxSockets' | 'panelReload'>;
  /** The spec's unless given (the benchmark lifts them). */
  ticketLimits?: RuntimeDeps['ticketLimits'];
  /** Provisioning settings (tests pass a cheaper password hash and shorter waits). */
  onboarding?: OnboardingOptions;
  auditCommitWindowMs?: RuntimeDeps['auditCommitWindowMs'];
}

/** A panel built and not yet running: it answers requests, but no timer, watcher or listener runs until `start()`. */
export interface Panel {
  app: App;
  services: Runtime;
  /** Starts the runtime's timers, watchers and traffic listener, then mounts the enabled plugins. Once. */
  start(): Promise<void>;
  /** Stops what `start()` started, waits for pending writes and flushes the store. */
  close(): Promise<void>;
}

export function composePanel(parts: PanelParts): Panel {
  const { config, store, clock, log, routes } = parts;
  const system = parts.system ?? createSystem(config.value.system, {
    dataDir: store.dataDir,
    // the host reads time from the same clock as the app: a manual one moves certificate expiry and unit uptimes too
    clock,
    publicLocations: publicLocations(routes),
    log: (message: string) => log.info(message),
    // The sandbox's public DNS: the configured domain and its subdomains point at the host ip.
    sandboxDns: hostIpResolver(() => config.value),
    ...parts.systemExtras,
  });
  const services = createRuntime({ mode: parts.mode, config, store, system, clock, log, ticketLimits: parts.ticketLimits, onboarding: parts.onboarding, auditCommitWindowMs: parts.auditCommitWindowMs,
    // the sandbox's own socket table, when given, is what the stream tunnels' port checks read too
    ...(parts.systemExtras?.sandboxSockets ? { liveSockets: liveSocketsOf(parts.systemExtras.sandboxSockets) } : {}) });
  const app = createApp(services, routes, {
    clientFiles: createClientFiles(() => config.value.staticDir),
    onResponse: auditRequests(services.audit),
    observer: services.metrics?.requests,
  });
  let starting: Promise<void> | undefined;
  return {
    app,
    services,
    start: () =>
      (starting ??= (async () => {
        await services.start();
        await services.plugins.attach(pluginHost(app, routes));
      })()),
    close: () => app.close(),
  };
}
