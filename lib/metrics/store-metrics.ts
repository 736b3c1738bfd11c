import { Histogram, type Registry } from 'prom-client';
import type { Store } from '../state/store.ts';

/** Journal append latency and group-commit batch size per collection (lib/state/record-collection.ts). */
export function registerStoreMetrics(registry: Registry, store: Store): void {
  const latency = new Histogram({
    name: 'relay_store_write_seconds',
    help: 'Time of one synchronized journal append (one group-commit batch).',
    labelNames: ['collection'],
    buckets: [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5],
    registers: [registry],
  });
  const batch = new Histogram({
    name: 'relay_store_batch_changes',
    help: 'Changes written together in one group-commit batch.',
    labelNames: ['collection'],
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256],
    registers: [registry],
  });
  // batches are few next to requests: prom-client's own label lookup is fine here
  store.observeWrites((collection, write) => {
    latency.observe({ collection }, write.seconds);
    batch.observe({ collection }, write.changes);
  });
}
