import type { RecordChange, RecordCollection } from './record-collection.ts';

/**
 * The records of a collection grouped by a derived key (records for which `groupOf` gives
 * undefined are left out), kept up to date change by change from the collection's feed: a write
 * costs the index what it changed, not a rebuild.
 */
export class GroupIndex<R> {
  readonly #groups = new Map<string, Map<string, R>>();
  readonly #listeners: ((group: string | null) => void)[] = [];
  #size = 0;

  constructor(
    private readonly collection: RecordCollection<R>,
    private readonly groupOf: (record: R) => string | undefined,
  ) {
    this.#rebuild();
    collection.watch((changes) => (changes ? this.#apply(changes) : this.#rebuild()));
  }

  /** The records in `group`, by record key. */
  group(group: string): ReadonlyMap<string, R> | undefined {
    return this.#groups.get(group);
  }

  /** Some record in `group` (for groups of at most one record). */
  one(group: string): R | undefined {
    const records = this.#groups.get(group);
    return records === undefined ? undefined : records.values().next().value;
  }

  /** Records indexed, in every group. */
  get size(): number {
    return this.#size;
  }

  /** Told the group that changed after each change, or `null` when any may have. */
  onGroupChange(listener: (group: string | null) => void): void {
    this.#listeners.push(listener);
  }

  #apply(changes: readonly RecordChange<R>[]): void {
    for (const { key, before, after } of changes) {
      const from = before === undefined ? undefined : this.groupOf(before);
      if (from !== undefined) this.#remove(from, key);
      const to = after === undefined ? undefined : this.groupOf(after);
      if (to !== undefined) this.#add(to, key, after!);
      if (from !== undefined) this.#tell(from);
      if (to !== undefined && to !== from) this.#tell(to);
    }
  }

  #rebuild(): void {
    this.#groups.clear();
    this.#size = 0;
    for (const record of this.collection.values()) {
      const group = this.groupOf(record);
      if (group !== undefined) this.#add(group, this.collection.keyOf(record), record);
    }
    this.#tell(null);
  }

  #add(group: string, key: string, record: R): void {
    let records = this.#groups.get(group);
    if (!records) this.#groups.set(group, (records = new Map()));
    if (!records.has(key)) this.#size++;
    records.set(key, record);
  }

  #remove(group: string, key: string): void {
    const records = this.#groups.get(group);
    if (!records?.delete(key)) return;
    this.#size--;
    if (records.size === 0) this.#groups.delete(group);
  }

  #tell(group: string | null): void {
    for (const listener of this.#listeners) listener(group);
  }
}
