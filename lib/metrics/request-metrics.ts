import type { Metric, Registry } from 'prom-client';

/** One series as prom-client's registry prints it. */
interface Series {
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
}

/** Seconds; Prometheus' usual latency buckets, trimmed to what an API on loopback answers in. */
export const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

/** One route pattern's tallies, kept as plain numbers: the request path does no label lookup or allocation. */
export class RouteTally {
  readonly byStatus = new Map<number, number>();
  /** Per bucket (not cumulative); the last slot is +Inf. */
  readonly buckets = new Float64Array(LATENCY_BUCKETS.length + 1);
  sum = 0;
  count = 0;

  constructor(
    readonly method: string,
    readonly route: string,
  ) {}

  record(status: number, seconds: number): void {
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
    let at = 0;
    while (at < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[at]!) at++;
    this.buckets[at]!++;
    this.sum += seconds;
    this.count++;
  }
}

/**
 * Requests by route pattern (never the raw URL), method and status, and a latency histogram per
 * route pattern. Tallies are turned into Prometheus series only when scraped.
 */
export class RequestMetrics {
  readonly #tallies = new Map<string, RouteTally>();
  readonly unmatched: RouteTally;

  constructor(registry: Registry) {
    this.unmatched = this.route('ANY', '(unmatched)');
    registry.registerMetric(this.#metric('relay_http_requests_total', 'HTTP requests answered, by route pattern, method and status.', 'counter', () => this.#requestValues()));
    registry.registerMetric(this.#metric('relay_http_request_duration_seconds', 'Time from the request reaching the app to its answer, by route pattern.', 'histogram', () => this.#latencyValues()));
  }

  /** The tally of a route pattern; the same one again when a mount comes back. */
  route(method: string, pattern: string): RouteTally {
    const key = `${method} ${pattern}`;
    let tally = this.#tallies.get(key);
    if (!tally) this.#tallies.set(key, (tally = new RouteTally(method, pattern)));
    return tally;
  }

  #requestValues(): Series[] {
    const values: Series[] = [];
    for (const tally of this.#tallies.values()) {
      for (const [status, value] of tally.byStatus) values.push({ labels: { route: tally.route, method: tally.method, status }, value });
    }
    return values;
  }

  #latencyValues(): Series[] {
    const values: Series[] = [];
    for (const tally of this.#tallies.values()) {
      if (tally.count === 0) continue;
      const labels = { route: tally.route, method: tally.method };
      let cumulative = 0;
      tally.buckets.forEach((inBucket, at) => {
        cumulative += inBucket;
        const le = at < LATENCY_BUCKETS.length ? LATENCY_BUCKETS[at]! : '+Inf';
        values.push({ metricName: 'relay_http_request_duration_seconds_bucket', labels: { ...labels, le }, value: cumulative });
      });
      values.push({ metricName: 'relay_http_request_duration_seconds_sum', labels, value: tally.sum });
      values.push({ metricName: 'relay_http_request_duration_seconds_count', labels, value: tally.count });
    }
    return values;
  }

  #metric(name: string, help: string, type: 'counter' | 'histogram', values: () => Series[]): Metric {
    const get = async () => ({ name, help, type, values: values(), aggregator: 'sum' as const });
    return { name, help, type, get } as unknown as Metric;
  }
}
