import { suite } from 'uvu';
import { isMultipartSpec } from '../../../lib/http/multipart.ts';
import * as assert from 'uvu/assert';
import { z, type ZodType } from 'zod';
import { routes } from '../../../handlers/index.ts';
import { ConfigSchema } from '../../../lib/config.ts';

// An unbounded array or string in a request schema lets one request build a huge
// error or value. Every string and array reachable from a route's params, query or body has a
// maximum, and so has every one of the configuration file.

const s = suite('request schemas are bounded');

type JsonSchema = { [key: string]: unknown };

/** Dotted paths of the strings and arrays in a JSON schema that have no maxLength / maxItems (a UUID's format fixes its length). */
function unbounded(schema: unknown, path: string, found: string[]): string[] {
  if (Array.isArray(schema)) schema.forEach((item, i) => unbounded(item, `${path}[${i}]`, found));
  if (!schema || typeof schema !== 'object') return found;
  const node = schema as JsonSchema;
  if (node.type === 'string' && node.maxLength === undefined && node.enum === undefined && node.const === undefined && node.format !== 'uuid') found.push(path);
  if (node.type === 'array' && node.maxItems === undefined) found.push(path);
  for (const [key, value] of Object.entries(node)) if (typeof value === 'object') unbounded(value, `${path}.${key}`, found);
  return found;
}

const schemaOf = (schema: ZodType) => z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });

s('every string and array of every route input has a maximum', () => {
  const problems = routes.flatMap((route) =>
    (['params', 'query', 'body'] as const).flatMap((part) => {
      const body = route.kind === 'http' ? route.body : undefined;
      // a multipart body's limits are byte counts, checked while it streams (lib/http/multipart.ts)
      const schema: ZodType | undefined = part === 'body' ? (isMultipartSpec(body) ? undefined : body) : route[part];
      return schema ? unbounded(schemaOf(schema), `${route.method} ${route.path} ${part}`, []) : [];
    }),
  );
  assert.equal(problems, []);
});

s('every string and array of the configuration file has a maximum', () => {
  assert.equal(unbounded(schemaOf(ConfigSchema), 'config', []), []);
});

s('the walk finds an unbounded string and array (the check can fail)', () => {
  const found = unbounded(schemaOf(z.object({ a: z.string(), b: z.array(z.number()), c: z.string().max(3) })), 'x', []);
  assert.equal(found, ['x.properties.a', 'x.properties.b']);
});

s.run();
