import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { firstAnswerOrIdle } from '../../../lib/node/first-answer.ts';
import { deferred } from '../../helpers/deferred.ts';
import { withTimeout } from '../../helpers/timeout.ts';

const s = suite<{ server: Server; url: string }>('first answer or idle (when the launcher writes its code cache)', { server: undefined as never, url: '' });

/** Answers wait for this: a test holds a response open to see that a request alone settles nothing. */
let answerWhen: Promise<void> = Promise.resolve();

s.before.each(async (ctx) => {
  answerWhen = Promise.resolve();
  ctx.server = createServer((_request, response) => void answerWhen.then(() => response.end('ok')));
  await new Promise<void>((ok) => ctx.server.listen(0, '127.0.0.1', ok));
  ctx.url = `http://127.0.0.1:${(ctx.server.address() as AddressInfo).port}`;
});
s.after.each(async (ctx) => {
  ctx.server.closeAllConnections();
  await new Promise((ok) => ctx.server.close(ok));
});

s('settles once the first response is sent, not when the request arrives, and stops listening for requests', ({ server, url }) =>
  withTimeout('first answer', 5000, async () => {
    const listeners = server.listenerCount('request');
    let settled = false;
    const answered = firstAnswerOrIdle(server, 60_000).then(() => (settled = true));
    assert.is(server.listenerCount('request'), listeners + 1);
    const release = deferred<void>();
    answerWhen = release.promise;
    const arrived = new Promise((ok) => server.once('request', ok));
    const response = fetch(`${url}/`);
    await arrived;
    await new Promise((ok) => setTimeout(ok, 20));
    assert.not.ok(settled, 'settled while the response was still open');
    release.resolve();
    assert.is(await (await response).text(), 'ok');
    await answered;
    assert.is(server.listenerCount('request'), listeners);
  }),
);

s('settles after the idle time when no request comes, and a later request changes nothing', ({ server, url }) =>
  withTimeout('idle', 5000, async () => {
    const listeners = server.listenerCount('request');
    await firstAnswerOrIdle(server, 20);
    assert.is(server.listenerCount('request'), listeners);
    assert.is((await fetch(`${url}/`)).status, 200);
  }),
);

s.run();
