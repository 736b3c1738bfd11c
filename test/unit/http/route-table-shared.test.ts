import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { json } from '../../../lib/http/responses.ts';
import { ADMIN_ONLY, route, type AnyRoute } from '../../../lib/http/route.ts';
import { createTestApp } from '../../../lib/testing.ts';

// A route list's order and compiled patterns are worked out once and shared by every table built
// from it (lib/http/router.ts); what each app's routes do stays its own.

const s = suite('route tables built from one list');

const domainOf = route({ method: 'GET', path: '/api/test/domain', access: { roles: ADMIN_ONLY, gate: 'open' }, handle: ({ services }) => json({ domain: services.config.value.domain }) });
const echo = route({ method: 'GET', path: '/api/test/echo/:word', access: { roles: ADMIN_ONLY, gate: 'open' }, params: z.object({ word: z.string() }), handle: ({ params }) => json({ word: params.word }) });

s('two apps from one list each answer with their own services, GET and HEAD alike', async () => {
  const list: readonly AnyRoute[] = [domainOf, echo];
  const [a, b] = [await createTestApp({ routes: list }), await createTestApp({ routes: list })];
  try {
    await a.completeOnboarding('a.example.test');
    await b.completeOnboarding('b.example.test');
    assert.equal((await a.call('GET', '/api/test/domain')).body, { domain: 'a.example.test' });
    assert.equal((await b.call('GET', '/api/test/domain')).body, { domain: 'b.example.test' });
    assert.equal((await b.call('GET', '/api/test/echo/hello')).body, { word: 'hello' });
    assert.is((await a.request('HEAD', '/api/test/domain')).status, 200);
  } finally {
    await a.close();
    await b.close();
  }
});

s('a list that grew since a table was built from it is read again', async () => {
  const list: AnyRoute[] = [domainOf];
  const before = await createTestApp({ routes: list });
  list.push(echo);
  const after = await createTestApp({ routes: list });
  try {
    assert.is((await before.call('GET', '/api/test/echo/x')).status, 404);
    assert.equal((await after.call('GET', '/api/test/echo/x')).body, { word: 'x' });
  } finally {
    await before.close();
    await after.close();
  }
});

s.run();
