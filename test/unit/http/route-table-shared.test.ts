// A route list's order and compiled patterns are worked out once and shared by every table built
// from it, and each route's steps are built at its first request (lib/http/router.ts); what each
// app's routes do stays its own.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { json } from '../../../lib/http/responses.ts';
import { ADMIN_ONLY, route, type AnyRoute } from '../../../lib/http/route.ts';
import { compileRouteList } from '../../../lib/http/router.ts';
import { createTestApp } from '../../../lib/testing.ts';

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

/**
 * `route`'s copy, with a count of the reads of one field: its access rule (the chain's steps read
 * it as they are built) or its path (sorting and compiling the list read it).
 */
function counted(base: AnyRoute, field: 'access' | 'path'): { route: AnyRoute; reads: () => number } {
  let reads = 0;
  const copy = { ...base } as AnyRoute;
  Object.defineProperty(copy, field, { enumerable: true, get: () => (reads++, base[field]) });
  return { route: copy, reads: () => reads };
}

s('a route\'s steps are built at its first request, once for GET and HEAD, and the first request goes through all of them', async () => {
  const watched = counted(domainOf, 'access');
  const t = await createTestApp({ routes: [watched.route, echo] });
  try {
    const atBuild = watched.reads();
    const [first, second] = await Promise.all([t.call('GET', '/api/test/domain'), t.call('GET', '/api/test/domain')]);
    assert.equal([first.status, second.status], [200, 200]);
    const built = watched.reads();
    assert.ok(built > atBuild, 'the first request built the chain, building the app did not');
    assert.is((await t.request('HEAD', '/api/test/domain')).status, 200);
    assert.is((await t.call('GET', '/api/test/domain', { as: 'none' })).status, 403, 'the built access guard refuses a caller without a certificate');
    assert.is(watched.reads(), built, 'built once');
  } finally {
    await t.close();
  }
});

s('a list compiled before any table is built from it (as while a startup snapshot is made) is neither sorted nor compiled again by the table', async () => {
  const build = async (prepare: boolean) => {
    const watched = counted(echo, 'path');
    const list: readonly AnyRoute[] = [domainOf, watched.route];
    if (prepare) compileRouteList(list);
    const before = watched.reads();
    const t = await createTestApp({ routes: list });
    const reads = watched.reads() - before;
    try {
      assert.equal((await t.call('GET', '/api/test/echo/hi')).body, { word: 'hi' });
    } finally {
      await t.close();
    }
    return reads;
  };
  const [fresh, prepared] = [await build(false), await build(true)];
  // sorting reads each path once, compiling once per method (GET, then HEAD)
  assert.ok(fresh - prepared >= 3, `the table read the prepared list's paths ${prepared} times, a fresh list's ${fresh}`);
});

s.run();
