import type * as PromClient from 'prom-client';
import { registerBoxMetrics, type BoxSources } from './box-metrics.ts';
import { registerStreamMetrics, type StreamSources } from './stream-metrics.ts';
import type { RequestMetrics } from './request-metrics.ts';
import type { StoreMetrics } from './store-metrics.ts';
import { familyText, type Series } from './tally.ts';
import { vhostLatencySeries } from './vhost-latency.ts';

/** Printed by `familyText` when scraped, not by prom-client. */
const OWN_TEXT = Symbol('own text');

/** A metric whose series are made from our own tallies when scraped. */
function fromTallies(name: string, help: string, type: 'counter' | 'histogram', values: () => Series[]): PromClient.Metric {
  const get = async () => ({ name, help, type, values: values(), aggregator: 'sum' as const });
  return { name, help, type, get, [OWN_TEXT]: () => familyText(name, help, type, values()) } as unknown as PromClient.Metric;
}

/**
 * The prom-client registry, built on the first scrape: prom-client is loaded then, not at start-up,
 * and the process metrics (collectDefaultMetrics) begin watching the event loop and GC from there.
 */
export async function createRegistry(sources: BoxSources & Partial<StreamSources>, requests: RequestMetrics, store: StoreMetrics): Promise<PromClient.Registry> {
  const client = await import('prom-client');
  // the tallies' families print themselves; prom-client's own metrics (process, box) as before
  // (getMetricsAsString is what registry.metrics() calls per metric; prom-client's types leave it out)
  const Base = client.Registry as unknown as new () => PromClient.Registry & { getMetricsAsString(metric: PromClient.Metric): Promise<string> };
  class Registry extends Base {
    override getMetricsAsString(metric: PromClient.Metric): Promise<string> {
      const own = (metric as { [OWN_TEXT]?: () => string })[OWN_TEXT];
      return own ? Promise.resolve(own()) : super.getMetricsAsString(metric);
    }
  }
  const registry = new Registry();
  client.collectDefaultMetrics({ register: registry });
  const metric = (name: string, help: string, type: 'counter' | 'histogram', values: () => Series[]) => registry.registerMetric(fromTallies(name, help, type, values));
  metric('relay_http_requests_total', 'HTTP requests answered, by route pattern, method and status.', 'counter', () => requests.requestSeries());
  const latency = 'relay_http_request_duration_seconds';
  metric(latency, 'Time from the request reaching the app to its answer, by route pattern.', 'histogram', () => requests.latencySeries(latency));
  const writes = 'relay_store_write_seconds';
  metric(writes, 'Time of one synchronized journal append (one group-commit batch).', 'histogram', () => store.series(writes, 'seconds'));
  const batches = 'relay_store_batch_changes';
  metric(batches, 'Changes written together in one group-commit batch.', 'histogram', () => store.series(batches, 'changes'));
  const vhostLatency = 'relay_vhost_latency_seconds';
  // bounded like the vhost counters (box-metrics.ts): the meter's vhost limit, pruned of deleted tunnels and sites
  metric(vhostLatency, 'Time nginx took to answer each request of each tunnel and site vhost, since the panel started.', 'histogram', () => vhostLatencySeries(vhostLatency, sources.traffic.totals()));
  registerBoxMetrics(client, registry, sources);
  if (sources.tunnels) registerStreamMetrics(client, registry, { tunnels: sources.tunnels, traffic: sources.traffic as StreamSources['traffic'] });
  return registry;
}
