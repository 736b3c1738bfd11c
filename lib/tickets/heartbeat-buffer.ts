import type { RecordCollection } from '../state/record-collection.ts';
import { changeWhere } from './collection-ops.ts';

interface BufferOptions<T> {
  key: (record: T) => string;
  /** The stored time a heartbeat moves (ISO). */
  stored: (record: T) => string;
  /** The record with the stored time set to `iso` (a copy: records are immutable). */
  set: (record: T, iso: string) => T;
  /** A heartbeat writes only once the stored time is this old. */
  writeEveryMs: number;
  /** Records that may still take a held time (not ended meanwhile). */
  writable: (record: T) => boolean;
}

/**
 * Heartbeats that change nothing but a timestamp, held in memory so that they cost no disk write.
 * A heartbeat writes only once the stored time is `writeEveryMs` old, and then writes every time
 * held, in one update shared by the heartbeats falling due in the same turn: many live records
 * cost about one write per interval, not one per record. Readers merge `latest` into what they show.
 */
export class HeartbeatBuffer<T> {
  readonly #latest = new Map<string, number>();
  #batch: Promise<void> | null = null;

  constructor(
    private readonly collection: RecordCollection<T>,
    private readonly options: BufferOptions<T>,
  ) {}

  /** The latest heartbeat (ms) not yet stored. */
  latest(key: string): number | undefined {
    return this.#latest.get(key);
  }


  /** Holds a heartbeat at `now`; when the stored time is due, resolves once the held times are on disk. */
  beat(record: T, now: number): Promise<void> {
    this.#latest.set(this.options.key(record), now);
    if (now - Date.parse(this.options.stored(record)) < this.options.writeEveryMs) return Promise.resolve();
    this.#batch ??= Promise.resolve().then(() => {
      this.#batch = null;
      return this.flush();
    });
    return this.#batch;
  }

  /** A change written with its own time (or an end) makes the held one moot. */
  forget(key: string): void {
    this.#latest.delete(key);
  }

  /** Drops held times for which `gone(key)` (records removed or ended). */
  forgetWhere(gone: (key: string) => boolean): void {
    for (const [key] of this.#latest) if (gone(key)) this.#latest.delete(key);
  }

  /** Writes every held time in one update (also on shutdown); nothing when none is held. */
  async flush(): Promise<void> {
    if (this.#latest.size === 0) return;
    const held = new Map(this.#latest);
    this.#latest.clear();
    const { key, set, writable } = this.options;
    await changeWhere(
      this.collection,
      (record) => held.has(key(record)) && writable(record),
      (record) => set(record, new Date(held.get(key(record))!).toISOString()),
    );
  }

  /** `records` with the held times merged in (the admin listings). */
  merged(records: readonly T[]): readonly T[] {
    if (this.#latest.size === 0) return records;
    const { key, set } = this.options;
    return records.map((record) => {
      const latest = this.#latest.get(key(record));
      return latest === undefined ? record : set(record, new Date(latest).toISOString());
    });
  }
}
