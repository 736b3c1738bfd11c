import type { DesiredTunnel } from '../host-state/desired.ts';
import { repairHost, type HostRepairReport } from './host-repair.ts';
import { jsonBytes } from '../json-bytes.ts';
import { KeyedLock } from '../keyed-lock.ts';
import { SharedGate } from '../shared-gate.ts';
import type { TunnelRecord } from '../state/schemas.ts';
import { AllowedPortsSync } from './allowed-ports.ts';
import { ClientConfig, type MacPlist } from './client-config.ts';
import type { TunnelContext, TunnelDeps } from './context.ts';
import { createTunnel } from './create.ts';
import { editTunnel } from './edit.ts';
import { deleteTunnel } from './remove.ts';
import { TunnelReservations } from './reservations.ts';
import type { TunnelCreate, TunnelSettings } from './schema.ts';
import { setTunnelEnabled } from './toggle.ts';
import { StreamService } from './streams/service.ts';
import { kernelSockets } from './streams/context.ts';

export type { TunnelDeps } from './context.ts';

const newestFirst = (a: TunnelRecord, b: TunnelRecord) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0);

export class TunnelService {
  /** `{"tunnels":[...]}` newest first, serialized once per change of the collection. */
  readonly listJson: () => Uint8Array<ArrayBuffer>;
  readonly #ctx: TunnelContext;
  readonly #client: ClientConfig;
  /** the TCP and UDP tunnels, which share this service's authfile, port claims and locks */
  readonly streams: StreamService;
  /** a certificate mode switch waits for the changes under way and holds back new ones (lib/shared-gate.ts) */
  readonly #gate: SharedGate;

  constructor(deps: TunnelDeps) {
    // reversed first: the sort is stable, so records created in the same millisecond stay newest first
    this.listJson = deps.store.tunnels.memo((tunnels) => jsonBytes({ tunnels: [...tunnels].reverse().sort(newestFirst) }));
    this.#ctx = {
      ...deps,
      reservations: new TunnelReservations(),
      locks: deps.tunnelLocks ?? new KeyedLock(),
      allowedPorts: new AllowedPortsSync(() => deps.store.tunnels.value, deps.system.tunnelServer, () => deps.store.streams.value),
    };
    this.#gate = deps.modeGate ?? new SharedGate();
    this.#client = new ClientConfig(deps);
    this.streams = new StreamService({ ...this.#ctx, liveSockets: deps.liveSockets ?? kernelSockets });
  }

  create(input: TunnelCreate): Promise<TunnelRecord> {
    return this.#gate.shared(() => createTunnel(this.#ctx, input));
  }

  setEnabled(id: string, enabled: boolean): Promise<TunnelRecord> {
    return this.#gate.shared(() => setTunnelEnabled(this.#ctx, id, enabled));
  }

  /** Port and description; the same all-or-nothing steps as a create. */
  edit(id: string, input: TunnelSettings): Promise<TunnelRecord> {
    return this.#gate.shared(() => editTunnel(this.#ctx, id, input));
  }

  delete(id: string): Promise<void> {
    return this.#gate.shared(() => deleteTunnel(this.#ctx, id));
  }

  agentConfigJson(): Promise<Uint8Array<ArrayBuffer>> {
    return this.#client.agentConfigJson();
  }

  macPlist(withCredential: boolean): Promise<MacPlist> {
    return this.#client.macPlist(withCredential);
  }

  /**
   * At start-up and after a restore: vhosts, their links and the authfile brought to the desired
   * host state (lib/host-state/desired.ts; the records' unless given). A crash between a host change
   * and the record's save would otherwise leave an orphan vhost, a missing one or a stray grant
   * until the next change.
   */
  repairHost(tunnels?: readonly DesiredTunnel[]): Promise<HostRepairReport> {
    return repairHost(this.#ctx, tunnels);
  }

  /** Ports the tunnel server should allow right now (enabled tunnels plus operations in flight). */
  desiredPorts(): number[] {
    return this.#ctx.allowedPorts.desiredPorts();
  }
}
