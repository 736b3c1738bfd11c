import { IdentityRegistry } from './auth/identity-registry.ts';
import { systemClock, type Clock } from './clock.ts';
import type { ConfigStore } from './config.ts';
import { createLogger, type Logger } from './log.ts';
import { OnboardingService, type OnboardingOptions } from './onboarding/service.ts';
import type { Store } from './state/store.ts';
import type { System } from './system/types.ts';
import { TicketService } from './tickets/service.ts';
import { startTicketTimers } from './tickets/timers.ts';
import { TunnelService } from './tunnels/service.ts';

export type Mode = 'development' | 'production';

/**
 * What one running panel is made of: its configuration, store, host adapters, clock, log and domain
 * services. Handlers reach it as `services`. Built once per app; tests build as many as they like.
 */
export interface Runtime {
  mode: Mode;
  config: ConfigStore;
  store: Store;
  system: System;
  clock: Clock;
  log: Logger;
  identities: IdentityRegistry;
  tunnels: TunnelService;
  ticketing: TicketService;
  onboarding: OnboardingService;
  /** Registers cleanup (timers, child processes) run by `close()`. */
  onClose(task: () => void | Promise<void>): void;
  /** Stops timers and waits for pending writes. */
  close(): Promise<void>;
}

export interface RuntimeDeps {
  mode: Mode;
  config: ConfigStore;
  store: Store;
  system: System;
  clock?: Clock;
  log?: Logger;
  /** Provisioning settings (tests pass a cheaper password hash and shorter waits). */
  onboarding?: OnboardingOptions;
}

export function createRuntime(deps: RuntimeDeps): Runtime {
  const closers: (() => void | Promise<void>)[] = [];
  const clock = deps.clock ?? systemClock;
  const log = deps.log ?? createLogger();
  const { onboarding: onboardingOptions, ...rest } = deps;
  const base = { ...rest, clock, log };
  const identities = new IdentityRegistry(deps.store);
  const services: Runtime = {
    ...base,
    identities,
    ticketing: new TicketService({ store: deps.store, clock, identities }),
    tunnels: new TunnelService(base),
    onboarding: new OnboardingService(base, onboardingOptions),
    onClose: (task) => void closers.push(task),
    async close() {
      for (const task of [...closers].reverse()) await task();
      await deps.store.flush();
      await deps.config.flush();
    },
  };
  // a run in progress finishes its current task before the store is flushed
  services.onClose(() => services.onboarding.close());
  services.onClose(startTicketTimers(services.ticketing, clock, log));
  return services;
}
