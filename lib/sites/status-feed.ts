// WS /api/sites/status/live's side in memory: each viewer is told `{sites}` as GET /api/sites/status
// answers it for them, at once and after each check (every CHECK_MS) in which traffic, the sites or
// the agents changed and their answer with it. Without viewers a check stops at counting them; with
// them, each distinct view (the admin's, an agent's allowedSites) is serialized once per check.
import type { Clock } from '../clock.ts';
import type { Logger } from '../log.ts';
import type { Store } from '../state/store.ts';
import type { TrafficMeter } from '../traffic/meter.ts';
import type { SiteService } from './service.ts';
import { siteStatuses } from './traffic-status.ts';
import type { SiteViewer } from './viewer.ts';

/** The tunnel status poll's cadence (lib/tunnels/status.ts POLL_MS). */
export const CHECK_MS = 5_000;

interface Subscriber {
  /** asked before each message: the caller's access as it stands now, null once it has none */
  current(): SiteViewer | null;
  send(json: string): void;
  /** its access is gone: the socket is closed */
  refuse(): void;
  last: string;
}

export class SitesStatusFeed {
  readonly #subscribers = new Set<Subscriber>();
  #seen = '';
  #stop: () => void = () => {};

  constructor(
    private readonly sites: Pick<SiteService, 'visibleTo'>,
    private readonly meter: Pick<TrafficMeter, 'traffic' | 'version'>,
    private readonly store: Pick<Store, 'sites' | 'agents' | 'revocations'>,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  /** Checks for changes every CHECK_MS until `close()`. */
  start(): void {
    this.#stop();
    // a timer's throw would end the process
    this.#stop = this.clock.every(CHECK_MS, () => {
      try {
        this.#check();
      } catch (error) {
        this.log.warn(`sites status feed: ${(error as Error).message}`);
      }
    });
  }

  /** Sends `{sites}` for `current()` at once and again on each change of it; null refuses at once. */
  subscribe(current: () => SiteViewer | null, send: (json: string) => void, refuse: () => void): () => void {
    const viewer = current();
    if (!viewer) {
      refuse();
      return () => {};
    }
    const subscriber: Subscriber = { current, send, refuse, last: this.#json(viewer) };
    send(subscriber.last);
    this.#subscribers.add(subscriber);
    return () => this.#subscribers.delete(subscriber);
  }

  #check(): void {
    if (this.#subscribers.size === 0) return;
    // what any answer depends on; each part only grows
    const seen = `${this.meter.version()} ${this.store.sites.version} ${this.store.agents.version} ${this.store.revocations.version}`;
    if (seen === this.#seen) return;
    this.#seen = seen;
    const byView = new Map<string, string>();
    for (const subscriber of this.#subscribers) {
      const viewer = subscriber.current();
      if (!viewer) {
        this.#subscribers.delete(subscriber);
        subscriber.refuse();
        continue;
      }
      const view = viewer.role === 'admin' ? 'admin' : JSON.stringify(viewer.allowedSites);
      let json = byView.get(view);
      if (json === undefined) byView.set(view, (json = this.#json(viewer)));
      // another site's traffic moved, not this viewer's
      if (json === subscriber.last) continue;
      subscriber.last = json;
      subscriber.send(json);
    }
  }

  #json(viewer: SiteViewer): string {
    return JSON.stringify({ sites: siteStatuses(this.sites.visibleTo(viewer), this.meter) });
  }

  close(): void {
    this.#stop();
    this.#subscribers.clear();
  }
}
