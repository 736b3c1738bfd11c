import type { JsonCollection } from '../state/collection.ts';

/** Drops matching records in place (inside an `update`); returns how many went. */
export function spliceWhere<T>(draft: T[], doomed: (record: T) => boolean): number {
  let kept = 0;
  for (const record of draft) if (!doomed(record)) draft[kept++] = record;
  const removed = draft.length - kept;
  draft.length = kept;
  return removed;
}

/** Removes matching records; writes nothing when none match, so periodic sweeps cost no disk I/O. */
export function removeWhere<T>(collection: JsonCollection<T[]>, doomed: (record: T) => boolean): Promise<number> {
  if (!collection.value.some(doomed)) return Promise.resolve(0);
  return collection.update((draft) => spliceWhere(draft, doomed));
}

/** Changes matching records; writes nothing when none match. */
export function changeWhere<T>(collection: JsonCollection<T[]>, matches: (record: T) => boolean, change: (record: T) => void): Promise<number> {
  if (!collection.value.some(matches)) return Promise.resolve(0);
  return collection.update((draft) => {
    const hits = draft.filter(matches);
    hits.forEach(change);
    return hits.length;
  });
}

export function indexBy<T, K>(list: readonly T[], key: (record: T) => K): ReadonlyMap<K, T> {
  return new Map(list.map((record) => [key(record), record]));
}
