// Whether each tunnel's client is connected, since when, and when it was last seen connected. The
// tunnel server is asked for all ports at once (one read of the kernel's socket tables, whatever
// the number of tunnels) every POLL_MS and when an answer is older than FRESH_MS; answers come from
// memory, and live viewers are told of each change, traffic included (at most once a poll). A
// restart forgets `connectedSince` and `lastSeen`: chisel keeps no history either.
import { z } from 'zod';
import { isoOrNull, type Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { TunnelRecord } from '../state/schemas.ts';
import type { TunnelServerAdapter } from '../system/types.ts';
import { Traffic, type TrafficMeter } from '../traffic/meter.ts';
import { tunnelTrafficName } from '../traffic/names.ts';

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
  enabled: boolean;
  /** an edit moves it: a live viewer is told the new port */
  port: number;
  since: number | null;
  last: number | null;
}

export class TunnelStatus {
  readonly #seen = new Map<string, Seen>();
  readonly #listeners = new Set<(json: string) => void>();
  #checkedAt = -Infinity;
  #trafficSeen = -Infinity;
  #checking: Promise<void> | null = null;
  readonly #stop: () => void;

  constructor(
    private readonly tunnels: () => readonly TunnelRecord[],
    private readonly server: Pick<TunnelServerAdapter, 'connectedPorts'>,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly meter: Pick<TrafficMeter, 'traffic' | 'version'>,
  ) {
    this.#stop = clock.every(POLL_MS, () => void this.refresh().catch((e: Error) => this.log.warn(`tunnel status: ${e.message}`)));
  }

  /** Asks the tunnel server once; concurrent callers share the one question. */
  refresh(): Promise<void> {
    return (this.#checking ??= this.#check().finally(() => (this.#checking = null)));
  }

  async #check(): Promise<void> {
    const tunnels = this.tunnels();
    // read before the ports are asked: lines counted while that answer is awaited are the next poll's,
    // so a slow answer never turns one poll into a push per burst of lines
    const traffic = this.meter.version();
    const connected = await this.server.connectedPorts(tunnels.filter((t) => t.enabled).map((t) => t.port));
    const now = this.clock.now();
    const ids = new Set<string>();
    // what a live viewer is told again: a client that came or went, a tunnel made, toggled, edited or deleted,
    // traffic counted since the last poll (not lastSeen alone)
    let changed = traffic !== this.#trafficSeen;
    this.#trafficSeen = traffic;
    for (const t of tunnels) {
      ids.add(t.id);
      const seen = this.#seen.get(t.id);
      const up = t.enabled && connected.has(t.port);
      const next = up ? { enabled: t.enabled, port: t.port, since: seen?.since ?? now, last: now } : { enabled: t.enabled, port: t.port, since: null, last: seen?.last ?? null };
      if (!seen || seen.enabled !== next.enabled || seen.port !== next.port || seen.since !== next.since) changed = true;
      this.#seen.set(t.id, next);
    }
    for (const id of this.#seen.keys()) {
      if (ids.has(id)) continue;
      this.#seen.delete(id);
      changed = true;
    }
    this.#checkedAt = now;
    if (!changed || this.#listeners.size === 0) return;
    // serialized once for every viewer
    const json = JSON.stringify({ tunnels: this.#items() });
    for (const listener of this.#listeners) listener(json);
  }

  /** Calls `listener` with `{tunnels}` (JSON) each time a client connects or goes, a tunnel comes, goes or is toggled, or traffic moved. */
  subscribe(listener: (json: string) => void): () => void {
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
    return this.tunnels().map((t) => {
      const seen = this.#seen.get(t.id);
      return {
        id: t.id, subdomain: t.subdomain, port: t.port, enabled: t.enabled,
        connected: seen?.since != null, connectedSince: isoOrNull(seen?.since ?? null), lastSeen: isoOrNull(seen?.last ?? null),
        traffic: this.meter.traffic(tunnelTrafficName(t.fqdn)),
      };
    });
  }

  close(): void {
    this.#stop();
    this.#listeners.clear();
  }
}
