// A handler returns its route's answer and the chain serializes it: the declared status, headers
// through reply(), pre-serialized bytes sent untouched.
import { z } from 'zod';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { reply } from '../../../lib/http/reply.ts';
import { jsonBytes } from '../../../lib/json-bytes.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { callerHeaders, createTestApp } from '../../../lib/testing.ts';

const s = suite('returned answers');

const access = { roles: ADMIN_ONLY, gate: 'open' } as const;
// a body the chain must not serialize again: spacing JSON.stringify would not produce
const cached = new TextEncoder().encode('{ "things" : [1, 2] }');

const routes = [
  route({ method: 'POST', path: '/api/answers/made', access, response: { status: 201, schema: z.object({ ok: z.literal(true), id: z.string() }) }, handle: () => ({ ok: true, id: 'a1' }) }),
  route({ method: 'GET', path: '/api/answers/cached', access, response: { kind: 'bytes', schema: z.object({ things: z.array(z.number()) }) }, handle: () => cached }),
  route({
    method: 'PUT', path: '/api/answers/again', access, response: { status: 201, schema: z.object({ created: z.boolean() }) },
    handle: () => reply({ created: false }, { status: 200, headers: { 'x-answer': 'again' } }),
  }),
  route({ method: 'GET', path: '/api/answers/file', access, response: { kind: 'response', schema: z.string(), contentType: 'text/plain' }, handle: () => new Response('plain') }),
];

s('a returned body goes out as JSON with the declared status; bytes as they are; reply() and Responses as built', async () => {
  const t = await createTestApp();
  try {
    t.app.mount('answers', routes);
    const call = (method: string, path: string) => t.app.fetch(new Request(`http://panel.test${path}`, { method, headers: callerHeaders('admin') }));
    const made = await call('POST', '/api/answers/made');
    assert.is(made.status, 201);
    assert.is(made.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(await made.json(), { ok: true, id: 'a1' });
    const bytes = await call('GET', '/api/answers/cached');
    assert.is(bytes.status, 200);
    assert.is(bytes.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(new Uint8Array(await bytes.arrayBuffer()), cached);
    const again = await call('PUT', '/api/answers/again');
    assert.is(again.status, 200);
    assert.is(again.headers.get('x-answer'), 'again');
    assert.equal(await again.json(), { created: false });
    const file = await call('GET', '/api/answers/file');
    assert.is(await file.text(), 'plain');
  } finally {
    await t.close();
  }
});

s('jsonBytes keeps what JSON.stringify gives, so a bytes route answers the same as a JSON one', () => {
  assert.is(new TextDecoder().decode(jsonBytes({ a: [1] })), JSON.stringify({ a: [1] }));
});

s.run();
