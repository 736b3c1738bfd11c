// What a record schema checks, as one hash: the definition zod keeps of it (types, shapes, enums,
// formats, patterns, defaults), with the source text of every function in it (refinements,
// transforms, zod's own `when` guards). A release whose schema checks differently gets another
// fingerprint, so the snapshots an earlier release checked are checked again (checked-snapshots.ts).
// A helper a refinement calls is not in its source text: a release that changes only that helper
// keeps the fingerprint (docs/decisions.md, "A start that does not read the box").
import { createHash } from 'node:crypto';
import type { ZodType } from 'zod';

const fingerprints = new WeakMap<ZodType, string>();

export function schemaFingerprint(schema: ZodType): string {
  let known = fingerprints.get(schema);
  if (known === undefined) {
    known = createHash('sha256').update(JSON.stringify(described(schema, new WeakSet()))).digest('base64');
    fingerprints.set(schema, known);
  }
  return known;
}

function described(value: unknown, seen: WeakSet<object>): unknown {
  if (typeof value === 'function') return `function ${value.toString()}`;
  if (value === null || typeof value !== 'object') return value === undefined ? '(undefined)' : value;
  if (value instanceof RegExp) return `regexp ${value.toString()}`;
  // a schema met again (a shared part, or a recursive one through a getter) is named, not walked twice
  if (seen.has(value)) return '(again)';
  seen.add(value);
  if ('_zod' in value) return { zod: described((value as { _zod: { def: unknown } })._zod.def, seen) };
  if (Array.isArray(value)) return value.map((item) => described(item, seen));
  return Object.fromEntries(Object.keys(value).sort().map((key) => [key, described((value as Record<string, unknown>)[key], seen)]));
}
