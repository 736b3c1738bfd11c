import { Registry, collectDefaultMetrics } from 'prom-client';
import { registerBoxMetrics, type BoxSources } from './box-metrics.ts';
import { RequestMetrics } from './request-metrics.ts';
import { registerStoreMetrics } from './store-metrics.ts';

/** GET /metrics: one registry per panel (tests build many in one process). */
export class Metrics {
  readonly #registry = new Registry();
  /** Handed to the app as its request observer (lib/http/observer.ts). */
  readonly requests: RequestMetrics;

  constructor(sources: BoxSources) {
    collectDefaultMetrics({ register: this.#registry });
    this.requests = new RequestMetrics(this.#registry);
    registerStoreMetrics(this.#registry, sources.store);
    registerBoxMetrics(this.#registry, sources);
  }

  get contentType(): string {
    return this.#registry.contentType;
  }

  /** The Prometheus text exposition of every metric, collected now. */
  text(): Promise<string> {
    return this.#registry.metrics();
  }
}
