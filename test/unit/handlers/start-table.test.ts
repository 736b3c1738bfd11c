import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routes } from '../../../handlers/index.ts';
import { routes as startTable } from '../../../handlers/start-table.ts';
import type { AnyRoute } from '../../../lib/http/route.ts';

// handlers/start-table.ts repeats what the router and nginx need of each route of handlers/index.ts
// (the types check the method and path against the module): here the rest, and that each entry
// loads its own route.

const s = suite('the start route table');

const known = ({ kind, method, path, access }: Pick<AnyRoute, 'kind' | 'method' | 'path' | 'access'>) => ({ kind, method, path, access });
const name = (r: Pick<AnyRoute, 'method' | 'path'>) => `${r.method} ${r.path}`;

s('lists the routes of handlers/index.ts, in its order, with their kind, method, path and access', () => {
  const missing = routes.filter((r) => !startTable.some((entry) => name(entry) === name(r)));
  assert.equal(missing.map((r) => `${name(r)}: add lazyRoute(${JSON.stringify(known(r))}, () => import('./<area>/<file>.ts'))`), [], 'routes missing from handlers/start-table.ts');
  assert.equal(startTable.map(name), routes.map(name), 'the same routes in the same order');
  assert.equal(startTable.map(known), routes.map(known));
});

s('each entry loads its route, once', async () => {
  for (const [i, entry] of startTable.entries()) {
    const loaded = await entry.load();
    assert.ok(loaded === routes[i], `${name(entry)} loads the route of its own module`);
    assert.ok((await entry.load()) === loaded);
  }
});

s.run();
