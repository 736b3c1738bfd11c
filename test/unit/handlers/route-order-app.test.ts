import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routes } from '../../../handlers/index.ts';
import { createApp } from '../../../lib/http/app.ts';
import type { RequestObserver } from '../../../lib/http/observer.ts';
import { json } from '../../../lib/http/responses.ts';
import { ADMIN_ONLY, route, type AnyRoute } from '../../../lib/http/route.ts';
import { createTestApp } from '../../../lib/testing.ts';
import { examplePath, hostileOrders, methodOf } from '../../helpers/route-samples.ts';

// The router's order by specificity through the real app: built from the handlers in hostile orders, every route still
// takes its own example path. The metrics observer names the pattern that answered; requests carry
// no certificate, so the chain refuses them before any handler changes state (public routes answer
// for sample values they do not know).

const s = suite('every route is reached whatever order the table lists it in');

/** Which pattern answered the latest request ('unmatched' when none did). */
function patternSpy(): { observer: RequestObserver; last(): string | undefined } {
  let last: string | undefined;
  const observer: RequestObserver = {
    route: (_method, pattern) => ({ record: () => void (last = pattern) }),
    unmatched: { record: () => void (last = 'unmatched') },
  };
  return { observer, last: () => last };
}

async function answeredBy(app: ReturnType<typeof createApp>, spy: ReturnType<typeof patternSpy>, method: string, path: string): Promise<string | undefined> {
  const response = await app.handle(new Request(`http://panel.test${path}`, { method }));
  await response.body?.cancel();
  return spy.last();
}

s('the built-in table, reversed and shuffled', async () => {
  const t = await createTestApp();
  try {
    for (const [n, hostile] of hostileOrders(routes, 3).entries()) {
      const spy = patternSpy();
      const app = createApp(t.services, hostile, { observer: spy.observer });
      for (const r of routes) {
        const method = methodOf(r);
        assert.is(await answeredBy(app, spy, method, examplePath(r.path)), r.path, `order ${n}: ${method} ${examplePath(r.path)}`);
      }
    }
  } finally {
    await t.close();
  }
});

const demo = (path: string): AnyRoute =>
  route({ method: 'GET', path, access: { roles: ADMIN_ONLY, gate: 'management' }, handle: () => json({ path }) }) as AnyRoute;

s('a mounted table (a plugin) in hostile order', async () => {
  const t = await createTestApp();
  try {
    const spy = patternSpy();
    const app = createApp(t.services, routes, { observer: spy.observer });
    const mounted = ['/api/demo/:id', '/api/demo/:id/items', '/api/demo/items/:id', '/api/demo/items', '/api/demo/items/all'].map(demo);
    app.mount('demo', mounted);
    for (const r of mounted) assert.is(await answeredBy(app, spy, 'GET', examplePath(r.path)), r.path, r.path);
    assert.is(await answeredBy(app, spy, 'GET', '/api/demo/a/b/c'), 'unmatched');
  } finally {
    await t.close();
  }
});

s.run();
