import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { firstAnswerOrIdle } from '../../../lib/node/first-answer.ts';
import { withTimeout } from '../../helpers/timeout.ts';

const s = suite<{ server: Server; url: string }>('first answer or idle (when the launcher writes its code cache)', { server: undefined as never, url: '' });

s.before.each(async (ctx) => {
  ctx.server = createServer((_request, response) => response.end('ok'));
  await new Promise<void>((ok) => ctx.server.listen(0, '127.0.0.1', ok));
  ctx.url = `http://127.0.0.1:${(ctx.server.address() as AddressInfo).port}`;
});
s.after.each(async (ctx) => {
  ctx.server.closeAllConnections();
  await new Promise((ok) => ctx.server.close(ok));
});

s('settles once the first response is sent, and stops listening for requests', ({ server, url }) =>
  withTimeout('first answer', 5000, async () => {
    const listeners = server.listenerCount('request');
    let settled = false;
    const answered = firstAnswerOrIdle(server, 60_000).then(() => (settled = true));
    assert.is(server.listenerCount('request'), listeners + 1);
    await Promise.resolve();
    assert.not.ok(settled, 'settled before any request');
    assert.is(await (await fetch(`${url}/`)).text(), 'ok');
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
