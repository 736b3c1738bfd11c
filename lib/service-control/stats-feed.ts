// GET /api/system/stats as bytes: serialized once per snapshot of the stats adapter, which caches
// its measurement for 2 s, so a request in between costs a lookup.
import { AppError, errorMessage } from '../errors.ts';
import { jsonBytes } from '../json-bytes.ts';
import type { StatsAdapter, SystemStats } from '../system/types.ts';

export const STATS_FAILED = 'Failed to read system statistics';

export class StatsFeed {
  readonly #stats: StatsAdapter;
  #source: Promise<SystemStats> | null = null;
  #bytes: Promise<Uint8Array<ArrayBuffer>> | null = null;

  constructor(stats: StatsAdapter) {
    this.#stats = stats;
  }

  json(): Promise<Uint8Array<ArrayBuffer>> {
    const source = this.#stats.snapshot();
    if (source !== this.#source || !this.#bytes) {
      this.#source = source;
      this.#bytes = source.then(jsonBytes, (error: unknown) => {
        throw new AppError(500, STATS_FAILED, errorMessage(error));
      });
    }
    return this.#bytes;
  }
}
