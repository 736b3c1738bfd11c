import type { RecordCollection } from './record-collection.ts';

/**
 * Calls `changed(before, after)` for each record added, replaced or removed since the last change
 * of the collection (`before` undefined: added; `after` undefined: removed), from its change feed,
 * so a change made by any path (a request, a restore, a hand edit of the file) is seen.
 */
export function watchDiff<R>(collection: RecordCollection<R>, changed: (before: R | undefined, after: R | undefined) => void): void {
  let seen = new Map(collection.value.map((r) => [collection.keyOf(r), r]));
  collection.watch(() => {
    const now = new Map(collection.value.map((r) => [collection.keyOf(r), r]));
    for (const [key, record] of now) if (seen.get(key) !== record) changed(seen.get(key), record);
    for (const [key, record] of seen) if (!now.has(key)) changed(record, undefined);
    seen = now;
  });
}
