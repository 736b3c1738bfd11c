// What depends on a route list alone is worked out once per list: every app and plugin host built
// from the same list asks, and a test kit builds one of each per case. A list that grew or shrank
// since (an embedder's own array) is worked out again.
import type { RouteEntry } from './lazy-route.ts';

/** `work` of a list, kept per list until its length changes. */
export function perRouteList<T>(work: (routes: readonly RouteEntry[]) => T): (routes: readonly RouteEntry[]) => T {
  const known = new WeakMap<readonly RouteEntry[], { length: number; value: T }>();
  return (routes) => {
    const kept = known.get(routes);
    if (kept?.length === routes.length) return kept.value;
    const value = work(routes);
    known.set(routes, { length: routes.length, value });
    return value;
  };
}
