import type { JsonCollection } from '../state/collection.ts';

// `update` runs its function synchronously on a copy of `collection.value`, so positions found in
// the value just before calling it are the draft's positions: one scan, then direct access.

function positionsWhere<T>(list: readonly T[], matches: (record: T) => boolean): number[] {
  const positions: number[] = [];
  for (let i = 0; i < list.length; i++) if (matches(list[i])) positions.push(i);
  return positions;
}

/** Removes matching records; writes nothing when none match, so periodic sweeps cost no disk I/O. */
export function removeWhere<T>(collection: JsonCollection<T[]>, doomed: (record: T) => boolean): Promise<number> {
  const positions = positionsWhere(collection.value, doomed);
  if (positions.length === 0) return Promise.resolve(0);
  return collection.update((draft) => {
    let kept = 0;
    let next = 0;
    for (let i = 0; i < draft.length; i++) {
      if (i === positions[next]) next++;
      else draft[kept++] = draft[i];
    }
    draft.length = kept;
    return positions.length;
  });
}

/** Changes matching records; writes nothing when none match. */
export function changeWhere<T>(collection: JsonCollection<T[]>, matches: (record: T) => boolean, change: (record: T) => void): Promise<number> {
  const positions = positionsWhere(collection.value, matches);
  if (positions.length === 0) return Promise.resolve(0);
  return collection.update((draft) => {
    for (const at of positions) change(draft[at]);
    return positions.length;
  });
}

/**
 * Changes the one record that `positions` (a memo of the collection) maps `key` to; false, with
 * nothing written, when there is none. `change` sees the record as it is inside the update and may
 * throw to change nothing: repeat the decisive check there.
 */
export function changeOne<T, K>(
  collection: JsonCollection<T[]>,
  positions: () => ReadonlyMap<K, number>,
  key: K,
  change: (record: T) => void,
): Promise<boolean> {
  const at = positions().get(key);
  if (at === undefined) return Promise.resolve(false);
  return collection.update((draft) => {
    change(draft[at]);
    return true;
  });
}

export function indexBy<T, K>(list: readonly T[], key: (record: T) => K): ReadonlyMap<K, T> {
  return new Map(list.map((record) => [key(record), record]));
}

export function positionBy<T, K>(list: readonly T[], key: (record: T) => K): ReadonlyMap<K, number> {
  return new Map(list.map((record, at) => [key(record), at]));
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
