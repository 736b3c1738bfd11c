// GET /api/system/stats as bytes: serialized once per measurement. The stats adapter keeps one
// measurement for 2 s (the spec's cache), so a request in between costs a lookup, not a stringify.
import { AppError, errorMessage } from '../errors.ts';
import { jsonBytes } from '../json-bytes.ts';
import type { StatsAdapter, SystemStats } from '../system/types.ts';

export const STATS_FAILED = 'Failed to read system statistics';

export class StatsFeed {
  readonly #stats: StatsAdapter;
  #serialized: { of: SystemStats; bytes: Uint8Array<ArrayBuffer> } | null = null;

  constructor(stats: StatsAdapter) {
    this.#stats = stats;
  }

  async json(): Promise<Uint8Array<ArrayBuffer>> {
    let stats: SystemStats;
    try {
      stats = await this.#stats.snapshot();
    } catch (error) {
      throw new AppError(500, STATS_FAILED, errorMessage(error));
    }
    // the adapter hands out the same object until it measures again
    if (this.#serialized?.of !== stats) this.#serialized = { of: stats, bytes: jsonBytes(stats) };
    return this.#serialized.bytes;
  }
}
