// A route whose module loads on its first request (lib/http/lazy-route.ts): nothing is loaded when
// the app is built or when other routes answer, the module once for all its requests, GET and HEAD.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routes as startTable } from '../../../handlers/start-table.ts';
import { lazyRoute } from '../../../lib/http/lazy-route.ts';
import { json } from '../../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { createTestApp } from '../../../lib/testing.ts';
import metricsRoute from '../../../handlers/metrics/show.ts';
import openapiRoute from '../../../handlers/openapi/show.ts';

const s = suite('routes loaded on first request');

const access = { roles: ADMIN_ONLY, gate: 'open' } as const;
const word = route({ method: 'GET', path: '/api/test/word', access, handle: () => json({ word: 'loaded' }) });
const other = route({ method: 'GET', path: '/api/test/other', access, handle: () => json({ other: true }) });

function watched() {
  let loads = 0;
  const entry = lazyRoute({ kind: 'http', method: 'GET', path: '/api/test/word', access }, async () => {
    loads++;
    return { default: word };
  });
  return { entry, loads: () => loads };
}

s('the module is loaded at the route\'s first request, once, and every request goes through its chain', async () => {
  const { entry, loads } = watched();
  const t = await createTestApp({ routes: [entry, other] });
  try {
    assert.equal((await t.call('GET', '/api/test/other')).body, { other: true });
    assert.is(loads(), 0, 'neither the app\'s build nor another route loads it');
    const [first, second] = await Promise.all([t.call('GET', '/api/test/word'), t.call('GET', '/api/test/word')]);
    assert.equal([first.body, second.body], [{ word: 'loaded' }, { word: 'loaded' }]);
    assert.is((await t.request('HEAD', '/api/test/word')).status, 200);
    assert.is((await t.call('GET', '/api/test/word')).status, 200);
    assert.is(loads(), 1);
    assert.is((await t.call('GET', '/api/test/word', { as: 'none' })).status, 403, 'the loaded route\'s access rule is enforced');
  } finally {
    await t.close();
  }
});

s('a module that fails to load: that request 500, counted under its route; the next request loads it again, and the OpenAPI document too', async () => {
  let attempts = 0;
  const flaky = lazyRoute({ kind: 'http', method: 'GET', path: '/api/test/word', access }, async () => {
    if (++attempts === 1) throw new Error('module evaluation failed');
    return { default: word };
  });
  const t = await createTestApp({ routes: [flaky, other, metricsRoute] });
  try {
    const failed = await t.call('GET', '/api/test/word');
    assert.is(failed.status, 500);
    const metrics = String((await t.call('GET', '/metrics')).body);
    assert.match(metrics, 'relay_http_requests_total{route="/api/test/word",method="GET",status="500"} 1');
    assert.not.match(metrics, 'route="(unmatched)",method="ANY",status="500"');
    assert.equal((await t.call('GET', '/api/test/word')).body, { word: 'loaded' });
    assert.is(attempts, 2);
  } finally {
    await t.close();
  }
  attempts = 0;
  const u = await createTestApp({ routes: [lazyRoute({ kind: 'http', method: 'GET', path: '/api/test/word', access }, async () => {
    if (++attempts === 1) throw new Error('module evaluation failed');
    return { default: word };
  }), other, openapiRoute] });
  try {
    assert.is((await u.call('GET', '/api/openapi.json')).status, 500, 'the document needs every route');
    const document = (await u.call('GET', '/api/openapi.json')).body as { paths: Record<string, unknown> };
    assert.ok(document.paths['/api/test/word'], Object.keys(document.paths).join(' '));
  } finally {
    await u.close();
  }
});

s('the start table answers as the loaded one, and its OpenAPI document lists every route', async () => {
  const t = await createTestApp({ routes: startTable });
  try {
    assert.equal((await t.call('GET', '/api/health')).body, { status: 'ok' });
    const document = (await t.call('GET', '/api/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const described = Object.entries(document.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`));
    const expected = startTable.filter((entry) => entry.kind === 'http').map((entry) => `${entry.method} ${entry.path.replace(/:(\w+)/g, '{$1}')}`);
    assert.equal(expected.filter((name) => !described.includes(name)), []);
  } finally {
    await t.close();
  }
});

s.run();
