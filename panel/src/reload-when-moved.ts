// A tunnel page's chart is asked again when the status (polled or live) says its traffic moved.
// The page's own GET on mount already holds what the first status answer says, so that first key
// is only remembered: reloading on it would fetch the chart twice on every visit.
import { useEffect, useRef } from 'preact/hooks';
import type { Resource } from './resource.ts';

/** Told each key in turn, says whether it is a move: a non-empty key other than the last non-empty one. */
export function moveWatcher(): (key: string) => boolean {
  let previous = '';
  return (key) => {
    const moved = previous !== '' && key !== '' && key !== previous;
    // an empty key (status not known yet, or the tunnel gone from it) keeps the last one, so its
    // return with the same traffic is no move
    if (key) previous = key;
    return moved;
  };
}

/** Reloads `resource` each time a non-empty `key` differs from the last non-empty one. */
export function useReloadWhenMoved(resource: Pick<Resource<unknown>, 'reload'>, key: string): void {
  const watch = useRef<((key: string) => boolean) | undefined>(undefined);
  watch.current ??= moveWatcher();
  const { reload } = resource;
  // a new `reload` with the same key (another path) is no move: the watcher answers false
  useEffect(() => { if (watch.current?.(key)) void reload(); }, [key, reload]);
}
