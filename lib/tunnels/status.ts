// Whether each tunnel's client is connected, since when, and when it was last seen connected. The
// tunnel server is asked for all ports at once (one read of the kernel's socket tables, whatever
// the number of tunnels) every POLL_MS and when an answer is older than FRESH_MS; answers come from
// memory, and live viewers are told of each change, traffic included (at most once a poll). The
// answer (about 100 KB at 1,000 tunnels, 1.7-2.4 ms to build) is built once per change and shared
// by GET /api/tunnels/status, the live feed, the metrics and the alerts: a change is what a check
// saw (a session, lastSeen, traffic counted since) or a new tunnel list, so traffic shows with at
// most FRESH_MS of delay, as connections do. A restart forgets `connectedSince` and `lastSeen`:
// chisel keeps no history either.
import { z } from 'zod';
import { isoOrNull, type Clock } from '../clock.ts';
import { jsonBytes } from '../json-bytes.ts';
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

/** One built answer, for one tunnel list and one generation of what the checks saw. */
class Answer {
  #text: string | null = null;
  #bytes: Uint8Array<ArrayBuffer> | null = null;

  constructor(
    readonly tunnels: readonly TunnelRecord[],
    readonly generation: number,
    readonly items: readonly TunnelStatusItem[],
  ) {}

  /** `{tunnels}` as JSON, serialized once for every viewer. */
  get text(): string {
    return (this.#text ??= JSON.stringify({ tunnels: this.items }));
  }

  /** The same, as the bytes GET answers (a string would be encoded again on every send). */
  get bytes(): Uint8Array<ArrayBuffer> {
    return (this.#bytes ??= jsonBytes({ tunnels: this.items }));
  }
}

export class TunnelStatus {
  readonly #seen = new Map<string, Seen>();
  /** Moves whenever a check saw anything the answer shows change. */
  #generation = 0;
  #answer: Answer | null = null;
  readonly #listeners = new Set<(json: string) => void>();
  #checkedAt = -Infinity;
  #trafficSeen = -Infinity;
  #checking: Promise<void> | null = null;
  #stop: () => void = () => {};

  constructor(
    private readonly tunnels: () => readonly TunnelRecord[],
    private readonly server: Pick<TunnelServerAdapter, 'connectedPorts'>,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly meter: Pick<TrafficMeter, 'traffic' | 'version'>,
  ) {}

  /** Polls the tunnel server every POLL_MS until `close()`: a built panel that is never started (a restore) polls nothing. */
  start(): void {
    this.#stop();
    this.#stop = this.clock.every(POLL_MS, () => void this.refresh().catch((e: Error) => this.log.warn(`tunnel status: ${e.message}`)));
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
    // what the answer shows: the above, and lastSeen
    let moved = false;
    this.#trafficSeen = traffic;
    for (const t of tunnels) {
      ids.add(t.id);
      const seen = this.#seen.get(t.id);
      const up = t.enabled && connected.has(t.port);
      const next = up ? { enabled: t.enabled, port: t.port, since: seen?.since ?? now, last: now } : { enabled: t.enabled, port: t.port, since: null, last: seen?.last ?? null };
      if (!seen || seen.enabled !== next.enabled || seen.port !== next.port || seen.since !== next.since) changed = true;
      else if (seen.last !== next.last) moved = true;
      this.#seen.set(t.id, next);
    }
    for (const id of this.#seen.keys()) {
      if (ids.has(id)) continue;
      this.#seen.delete(id);
      changed = true;
    }
    this.#checkedAt = now;
    if (changed || moved) this.#generation++;
    if (!changed || this.#listeners.size === 0) return;
    const json = this.#current().text;
    for (const listener of this.#listeners) listener(json);
  }

  /** Calls `listener` with `{tunnels}` (JSON) each time a client connects or goes, a tunnel comes, goes or is toggled, or traffic moved. */
  subscribe(listener: (json: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Every tunnel, in the store's order, from an answer at most FRESH_MS old; the same array until something changes. */
  async list(): Promise<readonly TunnelStatusItem[]> {
    return (await this.#fresh()).items;
  }

  /** `{tunnels}` as GET /api/tunnels/status answers, serialized: the same bytes until something changes. */
  async json(): Promise<Uint8Array<ArrayBuffer>> {
    return (await this.#fresh()).bytes;
  }

  /** `{tunnels}` as the live feed first tells it: the same text the feed pushes. */
  async text(): Promise<string> {
    return (await this.#fresh()).text;
  }

  async #fresh(): Promise<Answer> {
    // a tunnel made since the last answer has not been looked at yet
    const unseen = this.tunnels().some((t) => !this.#seen.has(t.id));
    if (unseen || this.clock.now() - this.#checkedAt >= FRESH_MS) await this.refresh();
    return this.#current();
  }

  /** The answer for the tunnels as they are now, built again only when they or what a check saw changed. */
  #current(): Answer {
    const tunnels = this.tunnels();
    const last = this.#answer;
    if (last && last.tunnels === tunnels && last.generation === this.#generation) return last;
    return (this.#answer = new Answer(tunnels, this.#generation, this.#items(tunnels)));
  }

  #items(tunnels: readonly TunnelRecord[]): TunnelStatusItem[] {
    return tunnels.map((t) => {
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
