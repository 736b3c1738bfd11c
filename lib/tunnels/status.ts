// Whether each tunnel's client is connected, since when, and when it was last seen connected. The
// tunnel server is asked for all ports at once (one read of the kernel's socket tables, whatever
// the number of tunnels) every POLL_MS and when an answer is older than FRESH_MS; answers come from
// memory, and live viewers are told of each change. A restart forgets `connectedSince` and
// `lastSeen`: chisel keeps no history either.
import { z } from 'zod';
import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { TunnelRecord } from '../state/schemas.ts';
import type { TunnelServerAdapter } from '../system/types.ts';
import { Traffic, type TrafficMeter } from '../traffic/meter.ts';

export const POLL_MS = 5_000;
const FRESH_MS = 1_000;

export const TunnelStatusItem = z.object({
  id: z.string(),
  subdomain: z.string(),
  port: z.number().int(),
  enabled: z.boolean(),
  /** a client session holds the tunnel's reverse port */
  connected: z.boolean(),
  /** ISO time of the connection seen first, null when not connected */
  connectedSince: z.string().nullable(),
  /** ISO time the tunnel was last seen connected, null when never since the panel started */
  lastSeen: z.string().nullable(),
  /** requests through the tunnel's vhost (nginx's traffic log); zero when the log is off */
  traffic: Traffic,
});
export type TunnelStatusItem = z.infer<typeof TunnelStatusItem>;

interface Seen {
  since: number | null;
  last: number | null;
}

/** What a live viewer is told again: a change of a tunnel's client, not each poll's lastSeen. */
const signature = (items: TunnelStatusItem[]) => JSON.stringify(items.map((t) => [t.id, t.enabled, t.connected, t.connectedSince]));

export class TunnelStatus {
  readonly #seen = new Map<string, Seen>();
  readonly #listeners = new Set<(items: TunnelStatusItem[]) => void>();
  #told = '';
  #checkedAt = -Infinity;
  #checking: Promise<void> | null = null;
  readonly #stop: () => void;

  constructor(
    private readonly tunnels: () => readonly TunnelRecord[],
    private readonly server: Pick<TunnelServerAdapter, 'connectedPorts'>,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly meter: Pick<TrafficMeter, 'traffic'>,
  ) {
    this.#stop = clock.every(POLL_MS, () => void this.refresh().catch((e: Error) => this.log.warn(`tunnel status: ${e.message}`)));
  }

  /** Asks the tunnel server once; concurrent callers share the one question. */
  refresh(): Promise<void> {
    return (this.#checking ??= this.#check().finally(() => (this.#checking = null)));
  }

  async #check(): Promise<void> {
    const tunnels = this.tunnels();
    const connected = await this.server.connectedPorts(tunnels.filter((t) => t.enabled).map((t) => t.port));
    const now = this.clock.now();
    const ids = new Set<string>();
    for (const t of tunnels) {
      ids.add(t.id);
      const seen = this.#seen.get(t.id) ?? { since: null, last: null };
      const up = t.enabled && connected.has(t.port);
      this.#seen.set(t.id, up ? { since: seen.since ?? now, last: now } : { since: null, last: seen.last });
    }
    for (const id of this.#seen.keys()) if (!ids.has(id)) this.#seen.delete(id);
    this.#checkedAt = now;
    const items = this.#items();
    const sig = signature(items);
    if (sig === this.#told) return;
    this.#told = sig;
    for (const listener of this.#listeners) listener(items);
  }

  /** Calls `listener` with every tunnel's status each time a client connects or goes, or a tunnel comes or goes. */
  subscribe(listener: (items: TunnelStatusItem[]) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Every tunnel, in the store's order, from an answer at most FRESH_MS old. */
  async list(): Promise<TunnelStatusItem[]> {
    // a tunnel made since the last answer has not been looked at yet
    const unseen = this.tunnels().some((t) => !this.#seen.has(t.id));
    if (unseen || this.clock.now() - this.#checkedAt >= FRESH_MS) await this.refresh();
    return this.#items();
  }

  #items(): TunnelStatusItem[] {
    const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
    return this.tunnels().map((t) => {
      const seen = this.#seen.get(t.id);
      return {
        id: t.id, subdomain: t.subdomain, port: t.port, enabled: t.enabled,
        connected: seen?.since != null, connectedSince: iso(seen?.since ?? null), lastSeen: iso(seen?.last ?? null),
        traffic: this.meter.traffic(`app:${t.fqdn}`),
      };
    });
  }

  close(): void {
    this.#stop();
    this.#listeners.clear();
  }
}
