import { Router } from 'itty-router';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routes } from '../../../handlers/index.ts';
import type { AnyRoute } from '../../../lib/http/route.ts';
import { bySpecificity } from '../../../lib/http/route-order.ts';
import { examplePath, hostileOrders, methodOf } from '../../helpers/route-samples.ts';

// The router orders routes by specificity, so no list has to be kept in order by hand.

const s = suite('route order by specificity');
const paths = (list: readonly string[]) => bySpecificity(list.map((path) => ({ path }))).map((r) => r.path);

s('a literal segment beats a :param, which beats a wildcard, at the first segment they differ', () => {
  assert.equal(paths(['/a/:id', '/a/b']), ['/a/b', '/a/:id']);
  assert.equal(paths(['/a/:x/c', '/a/b/:y']), ['/a/b/:y', '/a/:x/c']);
  assert.equal(paths(['/a/*', '/a/:x', '/a/b']), ['/a/b', '/a/:x', '/a/*']);
  assert.equal(paths(['/a/:rest+', '/a/b/c']), ['/a/b/c', '/a/:rest+']);
});

s('patterns that cannot match the same path keep the given order', () => {
  assert.equal(paths(['/z', '/a/:id', '/a/:id/x', '/a']), ['/z', '/a/:id', '/a/:id/x', '/a']);
  assert.equal(paths(['/a/:id', '/b/c']), ['/a/:id', '/b/c']);
  // equally specific (methods differ, or names only): the given order breaks the tie
  assert.equal(paths(['/s/:name/:action', '/s/:n/:a']), ['/s/:name/:action', '/s/:n/:a']);
});

/** itty itself, with each route answering its own pattern: the first one that matches wins. */
function matcher(list: readonly AnyRoute[]) {
  const router = Router();
  for (const r of list) router[methodOf(r).toLowerCase() as 'get'](r.path, () => r.path);
  return (method: string, path: string) => router.fetch(new Request(`http://panel${path}`, { method })) as Promise<unknown>;
}

s('every route of the real table is reached with its own example path, whatever order it is listed in', async () => {
  for (const [n, hostile] of hostileOrders(routes).entries()) {
    const take = matcher(bySpecificity(hostile));
    for (const r of routes) {
      assert.is(await take(methodOf(r), examplePath(r.path)), r.path, `order ${n}: ${methodOf(r)} ${examplePath(r.path)}`);
    }
  }
});

s('without the sort the reversed table shadows routes (the test above can fail)', async () => {
  const take = matcher([...routes].reverse());
  const shadowed: string[] = [];
  for (const r of routes) if ((await take(methodOf(r), examplePath(r.path))) !== r.path) shadowed.push(r.path);
  assert.ok(shadowed.includes('/api/plugins/push-install/policies'), shadowed.join(', '));
});

s.run();
