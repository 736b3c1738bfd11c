import type { RecordCollection } from '../state/record-collection.ts';

/** Removes matching records; writes nothing when none match, so periodic sweeps cost no disk I/O. */
export function removeWhere<T>(collection: RecordCollection<T>, doomed: (record: T) => boolean): Promise<number> {
  return collection.edit((draft) => {
    const keys = [...draft.values()].filter(doomed).map((record) => collection.keyOf(record));
    for (const key of keys) draft.delete(key);
    return keys.length;
  });
}

/** Replaces matching records with `change(record)`; writes nothing when none match. */
export function changeWhere<T>(collection: RecordCollection<T>, matches: (record: T) => boolean, change: (record: T) => NoInfer<T>): Promise<number> {
  return collection.edit((draft) => {
    const matching = [...draft.values()].filter(matches);
    for (const record of matching) draft.put(change(record));
    return matching.length;
  });
}

/**
 * Replaces the record with `key` by `change(record)`; false, with nothing written, when there is
 * none. `change` sees the record as it is inside the update and may throw to change nothing:
 * repeat the decisive check there.
 */
export function changeOne<T>(collection: RecordCollection<T>, key: string, change: (record: T) => NoInfer<T>): Promise<boolean> {
  return collection.edit((draft) => {
    const record = draft.get(key);
    if (record === undefined) return false;
    draft.put(change(record));
    return true;
  });
}

/** `collection.memo` over several collections: recomputed after any of them changes. */
export function memoOver<R>(collections: readonly { readonly version: number }[], derive: () => R): () => R {
  let versions: number[] = [];
  let cached: R;
  return () => {
    if (collections.some((collection, i) => collection.version !== versions[i])) {
      versions = collections.map((collection) => collection.version);
      cached = derive();
    }
    return cached;
  };
}
