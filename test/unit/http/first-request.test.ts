// A route table builds a route's chain at the route's first request (lib/http/router.ts): every
// entry holds the table's one stand-in until then, which finds its entry by the method and pattern
// itty matched. Each route answers through its own chain whichever answers first, GET and HEAD
// alike, and a method and pattern listed twice still reaches the second route when the first passes.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { json } from '../../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { createTestApp } from '../../../lib/testing.ts';

const s = suite('route table: chains built at the first request');
const access = { roles: ADMIN_ONLY, gate: 'open' } as const;
const named = (name: string, method: 'GET' | 'POST' | 'DELETE', path: string) =>
  route({ method, path, access, handle: () => json({ name }) });

s('each route answers through its own chain, in whatever order the routes first answer', async () => {
  const routes = [
    named('list', 'GET', '/api/test/items'),
    named('show', 'GET', '/api/test/items/:id'),
    named('create', 'POST', '/api/test/items'),
    named('remove', 'DELETE', '/api/test/items/:id'),
  ];
  const t = await createTestApp({ routes });
  try {
    for (const [method, path, name] of [
      ['DELETE', '/api/test/items/7', 'remove'],
      ['GET', '/api/test/items/8', 'show'],
      ['POST', '/api/test/items', 'create'],
      ['GET', '/api/test/items', 'list'],
      ['GET', '/api/test/items/9', 'show'],
      ['DELETE', '/api/test/items/10', 'remove'],
    ] as const) {
      assert.equal((await t.call(method, path)).body, { name }, `${method} ${path}`);
    }
    // HEAD is an entry of its own, built at its own first request, answering the GET route
    assert.is((await t.request('HEAD', '/api/test/items/11')).status, 200);
    assert.equal((await t.call('GET', '/api/test/items/12', { as: 'none' })).status, 403, 'the chain checks access');
  } finally {
    await t.close();
  }
});

s('a method and pattern listed twice: the second answers whenever the first passes', async () => {
  const passes = route({ method: 'GET', path: '/api/test/twice', access, handle: () => undefined as unknown as Response });
  const t = await createTestApp({ routes: [passes, named('second', 'GET', '/api/test/twice')] });
  try {
    for (let i = 0; i < 2; i++) assert.equal((await t.call('GET', '/api/test/twice')).body, { name: 'second' }, `request ${i + 1}`);
  } finally {
    await t.close();
  }
});

s.run();
