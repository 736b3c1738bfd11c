// Requests a client library would normalize, sent as bytes
// to the real node:http edge.
import { connect } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routes } from '../../../handlers/index.ts';
import { callerHeaders, createTestApp, type TestApp } from '../../../lib/testing.ts';
import { serve } from '../../helpers/http-server.ts';
import { rawExchange, rawHead } from '../../helpers/raw-http.ts';
import { withTimeout } from '../../helpers/timeout.ts';
import { testRoutes } from './test-routes.ts';

interface Ctx {
  t: TestApp;
  http: Awaited<ReturnType<typeof serve>>;
  logged: string[];
}

const s = suite<Ctx>('node edge hardening', {} as Ctx);

s.before.each(async (ctx) => {
  ctx.t = await createTestApp({ routes: [...routes, ...testRoutes] });
  ctx.http = await serve(ctx.t.app);
  ctx.logged = [];
  for (const level of ['warn', 'error'] as const) ctx.t.services.log[level] = (message) => void ctx.logged.push(`${level}: ${message}`);
});
s.after.each(async ({ t, http }) => {
  await http.close();
  await t.close();
});

const admin = (): [string, string][] => Object.entries(callerHeaders('admin'));

s('a malformed Host does not reach the URL: health answers 200 JSON, not the adapter\'s text/plain 500', ({ http }) =>
  withTimeout('bad host', 5000, async () => {
    const answer = await rawExchange(http.port, rawHead('GET', '/api/health', [['Host', 'a^b'], ['Connection', 'close']]));
    assert.is(answer.status, 200, answer.body);
    assert.equal(answer.json(), { status: 'ok' });
  }),
);

s('a request target without a path answers 400 {error} JSON', ({ http }) =>
  withTimeout('bad target', 5000, async () => {
    const answer = await rawExchange(http.port, rawHead('GET', '*', [['Host', 'x'], ['Connection', 'close']]));
    assert.is(answer.status, 400, answer.body);
    assert.match(answer.headers['content-type'] ?? '', 'application/json');
    assert.equal(answer.json(), { error: 'Bad request target' });
  }),
);

s('a backslash in the path is a bad target (the URL parser would read it as a slash, nginx does not); one in the query is data', ({ http }) =>
  withTimeout('backslash target', 5000, async () => {
    for (const target of ['/api/invite/..\\onboarding\\status', '/api\\health', 'http://x/api/invite/..\\health']) {
      const answer = await rawExchange(http.port, rawHead('GET', target, [['Host', 'x'], ['Connection', 'close']]));
      assert.is(answer.status, 400, `${target}: ${answer.body}`);
      assert.equal(answer.json(), { error: 'Bad request target' });
    }
    const query = await rawExchange(http.port, rawHead('GET', '/api/health?note=a\\b', [['Host', 'x'], ['Connection', 'close']]));
    assert.is(query.status, 200, query.body);
  }),
);

s('unparsable HTTP gets the {error} JSON shape, not node\'s bare 400', ({ http }) =>
  withTimeout('client error', 5000, async () => {
    const answer = await rawExchange(http.port, 'NOT HTTP AT ALL\r\n\r\n');
    assert.is(answer.status, 400);
    assert.match(answer.headers['content-type'] ?? '', 'application/json');
    assert.equal(answer.json(), { error: 'Bad request' });
  }),
);

s('the route comes from the request target only: a Host of `x\\api\\tunnels?` still runs /api/health', ({ http }) =>
  withTimeout('host routing', 5000, async () => {
    const answer = await rawExchange(http.port, rawHead('GET', '/api/health', [['Host', 'x\\api\\tunnels?'], ['Connection', 'close']]));
    assert.is(answer.status, 200, answer.body);
    assert.equal(answer.json(), { status: 'ok' });
  }),
);

s('an absolute-form target routes on its path, not on its authority', ({ http }) =>
  withTimeout('absolute form', 5000, async () => {
    const answer = await rawExchange(http.port, rawHead('GET', 'http://evil.test/api/health', [['Host', 'x'], ['Connection', 'close']]));
    assert.is(answer.status, 200, answer.body);
    assert.equal(answer.json(), { status: 'ok' });
  }),
);

s('POST with `Upgrade: websocket` is handled as the plain POST: the tunnel is created', ({ t, http }) =>
  withTimeout('post upgrade', 5000, async () => {
    await t.completeOnboarding();
    const body = JSON.stringify({ subdomain: 'upgraded', port: 8088 });
    const head = rawHead('POST', '/api/tunnels', [
      ['Host', '127.0.0.1'],
      ['Upgrade', 'websocket'],
      ['Connection', 'Upgrade, close'],
      ['Content-Type', 'application/json'],
      ['Content-Length', String(Buffer.byteLength(body))],
      ...admin(),
    ]);
    const answer = await rawExchange(http.port, head + body);
    assert.is(answer.status, 201, answer.body);
    assert.is(answer.json()?.tunnel?.subdomain, 'upgraded');
    assert.equal(t.services.store.tunnels.value.map((tunnel) => tunnel.subdomain), ['upgraded']);
  }),
);

s('a client that disconnects mid-body logs one line without a stack', ({ t, http, logged }) =>
  withTimeout('aborted body', 5000, async () => {
    await t.completeOnboarding();
    const head = rawHead('POST', '/api/tunnels', [['Host', '127.0.0.1'], ['Content-Type', 'application/json'], ['Content-Length', '1000'], ...admin()]);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(http.port, '127.0.0.1', () => socket.write(`${head}{"subdomain":`, () => setTimeout(() => socket.destroy(), 50)));
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
    for (let waited = 0; logged.length === 0 && waited < 2000; waited += 20) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 100));
    assert.is(logged.length, 1, logged.join('\n---\n'));
    assert.not.match(logged[0]!, /\n/);
    assert.match(logged[0]!, /^warn: /);
  }),
);

s('HEAD on a GET route answers as GET with no body (RFC 9110)', ({ t, http }) =>
  withTimeout('head', 5000, async () => {
    const viaFetch = await t.request('HEAD', '/api/health', { as: 'none' });
    assert.is(viaFetch.status, 200);
    assert.match(viaFetch.headers.get('content-type') ?? '', 'application/json');
    assert.is(await viaFetch.text(), '');
    const refused = await t.request('HEAD', '/api/tunnels', { as: 'none' });
    assert.is(refused.status, 403);
    assert.is(await refused.text(), '');
    const wire = await rawExchange(http.port, rawHead('HEAD', '/api/health', [['Host', '127.0.0.1'], ['Connection', 'close']]));
    assert.is(wire.status, 200);
    assert.is(wire.body, '');
  }),
);

s('a WebSocket handshake with a bad Sec-WebSocket-Key gets the {error} JSON shape', ({ t, http }) =>
  withTimeout('bad key', 5000, async () => {
    await t.completeOnboarding();
    const answer = await rawExchange(
      http.port,
      rawHead('GET', '/api/test/echo', [
        ['Host', '127.0.0.1'],
        ['Upgrade', 'websocket'],
        ['Connection', 'Upgrade'],
        ['Sec-WebSocket-Version', '13'],
        ['Sec-WebSocket-Key', 'not-a-key'],
        ...admin(),
      ]),
    );
    assert.is(answer.status, 400, answer.body);
    assert.match(answer.headers['content-type'] ?? '', 'application/json');
    assert.equal(answer.json(), { error: 'Missing or invalid Sec-WebSocket-Key header' });
  }),
);

s.run();
