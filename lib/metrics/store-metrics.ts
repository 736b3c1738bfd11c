import type { CollectionName, Store } from '../state/store.ts';
import { HistogramTally, type Series } from './tally.ts';

const WRITE_SECONDS_BUCKETS = [0.0001, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5];
const BATCH_CHANGES_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];

/** Journal append latency and group-commit batch size per collection (lib/state/record-collection.ts). */
export class StoreMetrics {
  readonly #byCollection = new Map<CollectionName, { seconds: HistogramTally; changes: HistogramTally }>();

  constructor(store: Store) {
    store.observeWrites((collection, write) => {
      let tallies = this.#byCollection.get(collection);
      if (!tallies) this.#byCollection.set(collection, (tallies = { seconds: new HistogramTally(WRITE_SECONDS_BUCKETS), changes: new HistogramTally(BATCH_CHANGES_BUCKETS) }));
      tallies.seconds.observe(write.seconds);
      tallies.changes.observe(write.changes);
    });
  }

  series(name: string, which: 'seconds' | 'changes'): Series[] {
    return [...this.#byCollection].flatMap(([collection, tallies]) => tallies[which].series(name, { collection }));
  }
}
