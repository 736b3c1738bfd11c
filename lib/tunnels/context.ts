import type { Clock } from '../clock.ts';
import type { ConfigStore } from '../config.ts';
import { appVhost } from '../host-state/vhost-specs.ts';
import type { CertModeConfig } from '../certs/dns01/lineage.ts';
import type { Logger } from '../log.ts';
import type { KeyedLock } from '../keyed-lock.ts';
import type { SharedGate } from '../shared-gate.ts';
import type { TunnelRecord } from '../state/schemas.ts';
import type { Store } from '../state/store.ts';
import type { VhostChange, System } from '../system/types.ts';
import type { AllowedPortsSync } from './allowed-ports.ts';
import type { TunnelReservations } from './reservations.ts';

export interface TunnelDeps {
  config: ConfigStore;
  store: Store;
  system: System;
  clock: Clock;
  log: Logger;
  /** the kernel's listeners and UDP sockets by port, for the TCP and UDP tunnels' port checks (tests give their own) */
  liveSockets?: () => Promise<Record<'tcp' | 'udp', ReadonlyMap<number, string> | null>>;
  /** the per-tunnel locks, shared with the access changes (which rewrite a tunnel's vhost too); the service's own when not given */
  tunnelLocks?: KeyedLock;
  /** held shared by every tunnel change, exclusive by a certificate mode switch; the service's own when not given */
  modeGate?: SharedGate;
}

/** What the tunnel operations share: the app's dependencies plus the in-memory coordination. */
export interface TunnelContext extends TunnelDeps {
  reservations: TunnelReservations;
  /** one toggle or delete at a time per tunnel id */
  locks: KeyedLock;
  allowedPorts: AllowedPortsSync;
}

export const TUNNEL_NOT_FOUND = 'Tunnel not found';

/** Writes (or rewrites) the tunnel's vhost and links it: enabling restores even a lost file. `config`: the certificate mode, never left out (a wildcard box's vhost must name the lineage, or be a route). */
export function putVhost(tunnel: Pick<TunnelRecord, 'fqdn' | 'port' | 'access'>, enabled: boolean, config: CertModeConfig): VhostChange {
  return { op: 'put', spec: appVhost(tunnel, config), enabled };
}

export function findTunnel(ctx: Pick<TunnelDeps, 'store'>, id: string): TunnelRecord | undefined {
  return ctx.store.tunnels.get(id);
}
