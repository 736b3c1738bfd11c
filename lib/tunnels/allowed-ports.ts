import { tunnelPorts } from '../host-state/desired.ts';
import { serialQueue } from '../keyed-lock.ts';
import type { StreamRecord, TunnelRecord } from '../state/schemas.ts';
import type { TunnelServerAdapter } from '../system/types.ts';

/** What an operation in flight wants for one tunnel until its record is saved (or it is undone). */
export interface PendingState {
  port: number;
  enabled: boolean;
}

/**
 * Keeps the tunnel server's authfile equal to "enabled tunnels", where a tunnel's state is its
 * pending state while an operation runs its steps, else its stored record.
 *
 * Every write computes the port list when it starts, from the current state, and writes run one
 * at a time; so the last write always reflects the latest state and no operation can put back a
 * stale list. A request made while a write is queued but not started joins that write: it has
 * not read the state yet, so it will include the request's change.
 */
export class AllowedPortsSync {
  readonly #pending = new Map<string, PendingState>();
  readonly #serial = serialQueue();
  /** The write waiting for its turn; it reads the state only when it starts. */
  #queued: Promise<void> | null = null;

  constructor(
    private readonly tunnels: () => readonly TunnelRecord[],
    private readonly server: Pick<TunnelServerAdapter, 'setAllowedPorts'>,
    /** TCP and UDP tunnels: their reverse listener is `tunnelPort` (chisel grants `R:127.0.0.1:<port>` for either protocol) */
    private readonly streams: () => readonly StreamRecord[] = () => [],
  ) {}

  setPending(id: string, state: PendingState): void {
    this.#pending.set(id, state);
  }

  clearPending(id: string): void {
    this.#pending.delete(id);
  }

  /** Sorted ports of the tunnels that are (or are about to be) enabled. */
  desiredPorts(): number[] {
    return tunnelPorts(this.#states());
  }

  /** A pending state overrides its record, and stands alone for a create not saved yet. */
  *#states(): Iterable<PendingState> {
    for (const t of this.tunnels()) if (!this.#pending.has(t.id)) yield t;
    for (const s of this.streams()) if (!this.#pending.has(s.id)) yield { port: s.tunnelPort, enabled: s.enabled };
    yield* this.#pending.values();
  }

  /** Writes the current desired ports; resolves once a write that started after this call is done. */
  sync(): Promise<void> {
    return (this.#queued ??= this.#serial(() => {
      this.#queued = null;
      return this.server.setAllowedPorts(this.desiredPorts());
    }));
  }
}
