import type { Registry } from 'prom-client';
import type { BoxSources } from './box-metrics.ts';
import type { StreamSources } from './stream-metrics.ts';
import { createRegistry } from './registry.ts';
import { RequestMetrics } from './request-metrics.ts';
import { StoreMetrics } from './store-metrics.ts';

/** GET /metrics of one panel (tests build many in one process). */
export class Metrics {
  /** Handed to the app as its request observer (lib/http/observer.ts). */
  readonly requests = new RequestMetrics();
  readonly #store: StoreMetrics;
  readonly #sources: BoxSources & Partial<StreamSources>;
  #registry: Promise<Registry> | null = null;

  constructor(sources: BoxSources & Partial<StreamSources>) {
    this.#sources = sources;
    this.#store = new StoreMetrics(sources.store);
  }

  /** The Prometheus text exposition of every metric, collected now, with its content type. */
  async scrape(): Promise<{ contentType: string; text: string }> {
    const registry = await (this.#registry ??= createRegistry(this.#sources, this.requests, this.#store));
    return { contentType: registry.contentType, text: await registry.metrics() };
  }
}
