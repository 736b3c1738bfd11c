import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import WebSocket from 'ws';
import { routes } from '../../../handlers/index.ts';
import { addAgent, certificateHeaders, completeOnboarding, makeTestApp, type Caller } from '../../helpers/app.ts';
import { serve } from '../../helpers/http-server.ts';
import { withTimeout } from '../../helpers/timeout.ts';
import { refusedUpgrade } from '../../helpers/websocket.ts';
import { testRoutes } from './test-routes.ts';

const s = suite('websocket routes');

/** Opens the socket, reads the greeting, sends `ping-1` and reads its echo. */
function connect(url: string, caller: Caller): Promise<{ first: string; echo: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: certificateHeaders(caller) });
    const messages: string[] = [];
    ws.on('message', (data) => {
      messages.push(String(data));
      if (messages.length === 1) ws.send('ping-1');
      if (messages.length === 2) {
        ws.close();
        resolve({ first: messages[0]!, echo: messages[1]! });
      }
    });
    ws.on('error', reject);
  });
}

s('the upgrade runs the whole chain; an accepted socket reaches the route', () =>
  withTimeout('ws accepted', 5000, async () => {
    const t = await makeTestApp({ routes: [...routes, ...testRoutes] });
    const http = await serve(t.app);
    try {
      await completeOnboarding(t);
      await addAgent(t, 'laptop-1', ['tunnels:read']);
      const outcome = await connect(`ws://127.0.0.1:${http.port}/api/test/echo`, { agent: 'laptop-1' });
      assert.equal(outcome, { first: JSON.stringify({ hello: 'agent', label: 'laptop-1' }), echo: 'ping-1' });
    } finally {
      await http.close();
      await t.close();
    }
  }),
);

s('a refused upgrade gets the same status and JSON body as HTTP', () =>
  withTimeout('ws refused', 5000, async () => {
    const t = await makeTestApp({ routes: [...routes, ...testRoutes] });
    const http = await serve(t.app);
    const url = `ws://127.0.0.1:${http.port}/api/test/echo`;
    try {
      assert.equal(await refusedUpgrade(url, 'none'), { status: 403, body: { error: 'mTLS certificate required' } });
      assert.equal(await refusedUpgrade(url, 'admin'), { status: 503, body: { error: 'Onboarding not complete', onboardingStatus: 'FRESH' } });
      await completeOnboarding(t);
      await addAgent(t, 'laptop-2', []);
      assert.equal(await refusedUpgrade(url, { agent: 'laptop-2' }), { status: 403, body: { error: 'Insufficient certificate capability' } });
      assert.equal(await refusedUpgrade(`ws://127.0.0.1:${http.port}/api/nothing-here`, 'admin'), { status: 404, body: { error: 'Not found' } });
    } finally {
      await http.close();
      await t.close();
    }
  }),
);

s('a plain GET on a WebSocket route answers 426', async () => {
  const t = await makeTestApp({ routes: [...routes, ...testRoutes] });
  try {
    await completeOnboarding(t);
    const { status } = await t.call('GET', '/api/test/echo');
    assert.is(status, 426);
  } finally {
    await t.close();
  }
});

s('closing the edge closes open sockets with 1001', () =>
  withTimeout('ws shutdown', 5000, async () => {
    const t = await makeTestApp({ routes: [...routes, ...testRoutes] });
    const http = await serve(t.app);
    await completeOnboarding(t);
    const code = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${http.port}/api/test/echo`, { headers: certificateHeaders('admin') });
      ws.on('message', () => http.edge.closeSockets());
      ws.on('close', (c) => resolve(c));
      ws.on('error', reject);
    });
    await http.close();
    await t.close();
    assert.is(code, 1001);
  }),
);

s.run();
