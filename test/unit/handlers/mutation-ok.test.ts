import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { routes } from '../../../handlers/index.ts';

// platform.md, Conventions: "Successful mutations return `ok: true`." Every POST, PUT, PATCH and
// DELETE of the platform (the ticket routes follow tickets.md) declares a JSON answer with `ok`
// fixed to true; the OpenAPI suite checks real answers against these declarations.

const s = suite('handlers: successful mutations answer ok: true');

// POST /api/sites/:id/verify-dns: the spec itself answers a name that does not resolve yet with 200 {ok: false, ...}.
const SPEC_OK_FALSE = new Set(['POST /api/sites/:id/verify-dns']);

const mutations = routes.filter((r) => r.kind === 'http' && r.method !== 'GET' && !r.path.startsWith('/api/tickets') && !SPEC_OK_FALSE.has(`${r.method} ${r.path}`));

s('the table has platform mutations to check', () => {
  assert.ok(mutations.length > 40, `${mutations.length} mutations`);
});

s('each declares a JSON answer whose ok is the literal true', () => {
  const missing: string[] = [];
  for (const r of mutations) {
    const response = r.kind === 'http' ? r.response : undefined;
    const schema = response && !response.contentType ? response.schema : undefined;
    const ok = schema instanceof z.ZodObject ? (schema.shape as Record<string, z.ZodType>).ok : undefined;
    if (!(ok instanceof z.ZodLiteral && ok.value === true)) missing.push(`${r.method} ${r.path}`);
  }
  assert.equal(missing, []);
});

s.run();
