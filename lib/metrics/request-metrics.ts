import { HistogramTally, type Series } from './tally.ts';

/** Seconds; Prometheus' usual latency buckets, trimmed to what an API on loopback answers in. */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

/** One route pattern's tallies: the request path adds to plain numbers found once, when the route table was built. */
export class RouteTally {
  readonly byStatus = new Map<number, number>();
  readonly latency = new HistogramTally(LATENCY_BUCKETS);

  constructor(
    readonly method: string,
    readonly route: string,
  ) {}

  record(status: number, seconds: number): void {
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
    this.latency.observe(seconds);
  }
}

/**
 * Requests by route pattern (never the raw URL), method and status, and a latency histogram per
 * route pattern; the app's request observer (lib/http/observer.ts).
 */
export class RequestMetrics {
  readonly #tallies = new Map<string, RouteTally>();
  readonly unmatched = this.route('ANY', '(unmatched)');

  /** The tally of a route pattern; the same one again when a mount comes back. */
  route(method: string, pattern: string): RouteTally {
    const key = `${method} ${pattern}`;
    let tally = this.#tallies.get(key);
    if (!tally) this.#tallies.set(key, (tally = new RouteTally(method, pattern)));
    return tally;
  }

  requestSeries(): Series[] {
    const values: Series[] = [];
    for (const tally of this.#tallies.values()) {
      for (const [status, value] of tally.byStatus) values.push({ labels: { route: tally.route, method: tally.method, status }, value });
    }
    return values;
  }

  latencySeries(name: string): Series[] {
    return [...this.#tallies.values()].filter((t) => t.latency.count > 0).flatMap((t) => t.latency.series(name, { route: t.route, method: t.method }));
  }
}
