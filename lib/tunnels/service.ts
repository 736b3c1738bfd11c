import type { Clock } from '../clock.ts';
import type { ConfigStore } from '../config.ts';
import type { Logger } from '../log.ts';
import type { TunnelRecord } from '../state/schemas.ts';
import type { Store } from '../state/store.ts';
import type { System } from '../system/types.ts';

export interface TunnelDeps {
  config: ConfigStore;
  store: Store;
  system: System;
  clock: Clock;
  log: Logger;
}

const newestFirst = (a: TunnelRecord, b: TunnelRecord) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0);

export class TunnelService {
  /** `{"tunnels":[...]}` newest first, serialized once per change of the collection. */
  readonly listJson: () => string;

  constructor(private readonly deps: TunnelDeps) {
    this.listJson = deps.store.tunnels.memo((tunnels) => JSON.stringify({ tunnels: [...tunnels].sort(newestFirst) }));
  }

  list(): readonly TunnelRecord[] {
    return this.deps.store.tunnels.value;
  }
}
