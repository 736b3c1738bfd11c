/**
 * The order a route table tries its routes in. itty takes the first pattern that matches, so a
 * parameterized or wildcard pattern must not come before a more literal one that matches the same
 * paths; sorting here, once per table, means no list has to be kept in that order by hand.
 */

/** How much a segment pins down: a literal beats a `:param`, which beats a wildcard. */
const Rank = { Literal: 0, Param: 1, Wildcard: 2 } as const;
type Rank = (typeof Rank)[keyof typeof Rank];

interface Shape {
  segments: string[];
  ranks: Rank[];
}

function shape(path: string): Shape {
  const segments = path.split('/').filter((segment) => segment !== '');
  // `:rest+` matches the rest of the path like `*` (itty 6)
  const ranks = segments.map((s) => (s.includes('*') || /:\w+\+/.test(s) ? Rank.Wildcard : s.includes(':') ? Rank.Param : Rank.Literal));
  return { segments, ranks };
}

/** True when some path could match both: literals agree wherever both have one, lengths agree unless a wildcard takes the rest. */
function overlap(a: Shape, b: Shape): boolean {
  for (let i = 0; i < Math.min(a.ranks.length, b.ranks.length); i += 1) {
    if (a.ranks[i] === Rank.Wildcard || b.ranks[i] === Rank.Wildcard) return true;
    if (a.ranks[i] === Rank.Literal && b.ranks[i] === Rank.Literal && a.segments[i] !== b.segments[i]) return false;
  }
  return a.ranks.length === b.ranks.length;
}

/** Negative when `a` must come first: the first segment whose rank differs decides; 0 when none does. */
function precedence(a: Shape, b: Shape): number {
  for (let i = 0; i < Math.min(a.ranks.length, b.ranks.length); i += 1) {
    if (a.ranks[i] !== b.ranks[i]) return a.ranks[i]! - b.ranks[i]!;
  }
  return 0;
}

/**
 * The routes reordered so that of two patterns that can match the same path the more specific one
 * comes first; otherwise the given order stands (methods are ignored: a stricter order than itty
 * needs costs nothing). "First differing rank" is a strict partial order, so the constraints have
 * no cycle; each step takes the earliest route whose more specific rivals are already placed.
 */
export function bySpecificity<R extends { path: string }>(routes: readonly R[]): R[] {
  const shapes = routes.map((route) => shape(route.path));
  const waitsFor = routes.map(() => 0);
  const unblocks: number[][] = routes.map(() => []);
  for (let i = 0; i < routes.length; i += 1) {
    for (let j = i + 1; j < routes.length; j += 1) {
      if (!overlap(shapes[i]!, shapes[j]!)) continue;
      const order = precedence(shapes[i]!, shapes[j]!);
      if (order === 0) continue;
      const [first, second] = order < 0 ? [i, j] : [j, i];
      unblocks[first]!.push(second);
      waitsFor[second]! += 1;
    }
  }
  const placed = routes.map(() => false);
  const ordered: R[] = [];
  while (ordered.length < routes.length) {
    const next = waitsFor.findIndex((count, k) => count === 0 && !placed[k]);
    placed[next] = true;
    ordered.push(routes[next]!);
    for (const k of unblocks[next]!) waitsFor[k]! -= 1;
  }
  return ordered;
}
