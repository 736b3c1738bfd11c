import type { AnyRoute } from '../../lib/http/route.ts';

// Hostile orders of a route list and a path each route should take, for the route-order tests.

/** A value no sibling literal uses, so the example path can only be taken by a parameterized route. */
const SAMPLE = 'sample-7';

/** The route's pattern with each `:param` replaced by a sample value (and `*` by one segment). */
export function examplePath(pattern: string): string {
  return pattern.replace(/:\w+\+?/g, SAMPLE).replace(/\*/g, SAMPLE);
}

/** The method itty sees: a WebSocket route is a GET. */
export function methodOf(route: AnyRoute): string {
  return route.kind === 'ws' ? 'GET' : route.method;
}

/** The list reversed, then `count` seeded shuffles (a fixed seed: a failure reproduces). */
export function hostileOrders<T>(list: readonly T[], count = 5): T[][] {
  const orders = [[...list].reverse()];
  let seed = 30;
  // 32-bit integer arithmetic (Math.imul): a plain product would lose bits past 2^53
  const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32;
  for (let n = 0; n < count; n += 1) {
    const shuffled = [...list];
    for (let i = shuffled.length - 1; i > 0; i -= 1) {
      const j = Math.floor(random() * (i + 1));
      [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
    }
    orders.push(shuffled);
  }
  return orders;
}
