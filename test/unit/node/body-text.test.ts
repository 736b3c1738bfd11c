// JSON bodies read straight from node's stream on the Node edge (the adapter's WHATWG stream is
// bypassed): the same answers as the fetch core gives, through the real listener.
import { request as httpRequest } from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { callerHeaders, createTestApp, type TestApp } from '../../../lib/testing.ts';
import { serve } from '../../helpers/http-server.ts';
import { withTimeout } from '../../helpers/timeout.ts';
import { testRoutes } from '../http/test-routes.ts';

interface Ctx {
  t: TestApp;
  http: Awaited<ReturnType<typeof serve>>;
}

const s = suite<Ctx>('node edge: JSON bodies from the raw stream', {} as Ctx);

s.before.each(async (ctx) => {
  ctx.t = await createTestApp({ routes: testRoutes });
  ctx.http = await serve(ctx.t.app);
});
s.after.each(async ({ t, http }) => {
  await http.close();
  await t.close();
});

interface Sent {
  status: number;
  body: any;
}

/** POSTs `chunks` to the echo route, one write each (chunked transfer), and reads the answer. */
function post(port: number, chunks: readonly (string | Buffer)[], { abortAfterFirst = false } = {}): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { port, host: '127.0.0.1', method: 'POST', path: '/api/test/things/7', headers: { ...callerHeaders('admin'), 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8').on('data', (c) => (text += c)).on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    const [first, ...rest] = chunks;
    req.write(first ?? '');
    if (abortAfterFirst) {
      setTimeout(() => {
        req.destroy();
        resolve({ status: 0, body: null });
      }, 50);
      return;
    }
    for (const chunk of rest) req.write(chunk);
    req.end();
  });
}

s('a body in several chunks, with a UTF-8 character split across two of them, parses as one', ({ http }) =>
  withTimeout('chunks', 5000, async () => {
    const euro = Buffer.from('€', 'utf8');
    const answer = await post(http.port, ['{"name": "a', euro.subarray(0, 1), Buffer.concat([euro.subarray(1), Buffer.from('b", "size": 3}')])]);
    assert.is(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.body, { name: 'a€b', size: 3 });
  }),
);

s('a leading byte order mark is not part of the JSON (as TextDecoder reads it)', ({ http }) =>
  withTimeout('bom', 5000, async () => {
    const answer = await post(http.port, ['\uFEFF{"name": "ab", "size": 1}']);
    assert.is(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.body, { name: 'ab', size: 1 });
  }),
);

s('a chunked body past 1 MiB is refused with 413 as soon as it passes the limit', ({ http }) =>
  withTimeout('too large', 5000, async () => {
    const chunk = 'x'.repeat(256 * 1024);
    const answer = await post(http.port, Array.from({ length: 6 }, () => chunk));
    assert.is(answer.status, 413);
    assert.equal(answer.body, { error: 'Request body too large' });
  }),
);

s('a client that goes away mid-body leaves the server answering the next request', ({ t, http }) =>
  withTimeout('abort', 5000, async () => {
    const logged: string[] = [];
    t.services.log.error = (message) => void logged.push(message);
    await post(http.port, ['{"name": "ab", '], { abortAfterFirst: true });
    await new Promise((r) => setTimeout(r, 50));
    const answer = await post(http.port, ['{"name": "ab", "size": 2}']);
    assert.is(answer.status, 200);
    assert.equal(logged, [], 'an abort is not a server error');
  }),
);

s.run();
