import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connect as connectTcp } from 'node:net';
import WebSocket from 'ws';
import { routes } from '../../../handlers/index.ts';
import { callerHeaders, createTestApp, type Caller } from '../../../lib/testing.ts';
import { serve } from '../../helpers/http-server.ts';
import { rawHead } from '../../helpers/raw-http.ts';
import { withTimeout } from '../../helpers/timeout.ts';
import { refusedUpgrade } from '../../helpers/websocket.ts';
import { testRoutes } from './test-routes.ts';

const s = suite('websocket routes');

/** Opens the socket, reads the greeting, sends `ping-1` and reads its echo. */
function connect(url: string, caller: Caller): Promise<{ first: string; echo: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers: callerHeaders(caller) });
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
    const t = await createTestApp({ routes: [...routes, ...testRoutes] });
    const http = await serve(t.app);
    try {
      await t.completeOnboarding();
      await t.addAgent('laptop-1', ['tunnels:read']);
      const outcome = await connect(`ws://127.0.0.1:${http.port}/api/test/echo`, { agent: 'laptop-1', serial: t.agentSerial('laptop-1') });
      assert.equal(outcome, { first: JSON.stringify({ hello: 'agent', label: 'laptop-1' }), echo: 'ping-1' });
    } finally {
      await http.close();
      await t.close();
    }
  }),
);

s('a refused upgrade gets the same status and JSON body as HTTP', () =>
  withTimeout('ws refused', 5000, async () => {
    const t = await createTestApp({ routes: [...routes, ...testRoutes] });
    const http = await serve(t.app);
    const url = `ws://127.0.0.1:${http.port}/api/test/echo`;
    try {
      assert.equal(await refusedUpgrade(url, 'none'), { status: 403, body: { error: 'mTLS certificate required' } });
      assert.equal(await refusedUpgrade(url, 'admin'), { status: 503, body: { error: 'Onboarding not complete', onboardingStatus: 'FRESH' } });
      await t.completeOnboarding();
      await t.addAgent('laptop-2', []);
      assert.equal(await refusedUpgrade(url, { agent: 'laptop-2', serial: t.agentSerial('laptop-2') }), { status: 403, body: { error: 'Insufficient certificate capability' } });
      assert.equal(await refusedUpgrade(`ws://127.0.0.1:${http.port}/api/nothing-here`, 'admin'), { status: 404, body: { error: 'Not found' } });
    } finally {
      await http.close();
      await t.close();
    }
  }),
);

s('a plain GET on a WebSocket route answers 426', async () => {
  const t = await createTestApp({ routes: [...routes, ...testRoutes] });
  try {
    await t.completeOnboarding();
    const { status } = await t.call('GET', '/api/test/echo');
    assert.is(status, 426);
  } finally {
    await t.close();
  }
});

s('closing the edge closes open sockets with 1001', () =>
  withTimeout('ws shutdown', 5000, async () => {
    const t = await createTestApp({ routes: [...routes, ...testRoutes] });
    const http = await serve(t.app);
    await t.completeOnboarding();
    const code = await new Promise<number>((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${http.port}/api/test/echo`, { headers: callerHeaders('admin') });
      ws.on('message', () => http.edge.closeSockets());
      ws.on('close', (c) => resolve(c));
      ws.on('error', reject);
    });
    await http.close();
    await t.close();
    assert.is(code, 1001);
  }),
);

/** Every byte the server sends for one raw handshake, until it closes the connection. */
function rawHandshake(port: number, path: string): Promise<Buffer> {
  const head = rawHead('GET', path, [
    ['host', '127.0.0.1'],
    ['connection', 'Upgrade'],
    ['upgrade', 'websocket'],
    ['sec-websocket-version', '13'],
    ['sec-websocket-key', 'dGhlIHNhbXBsZSBub25jZQ=='],
    ...Object.entries(callerHeaders('admin')),
  ]);
  return new Promise((resolve, reject) => {
    const socket = connectTcp(port, '127.0.0.1', () => socket.write(head));
    const chunks: Buffer[] = [];
    socket.setTimeout(4000, () => socket.destroy(new Error('no close within 4 s')));
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      // answer the server's close frame as a client would, so it ends the connection
      if (chunk.includes(Buffer.from([0x88]))) socket.end(Buffer.from([0x88, 0x80, 0, 0, 0, 0]));
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks)));
  });
}

for (const [name, path] of [
  ['throws', '/api/test/socket-bug'],
  ['rejects', '/api/test/socket-async-bug'],
] as const) {
  s(`a route whose connect ${name} closes the upgraded socket with 1011, never writes HTTP after 101`, () =>
    withTimeout(`ws connect ${name}`, 5000, async () => {
      const t = await createTestApp({ routes: [...routes, ...testRoutes] });
      const http = await serve(t.app);
      try {
        const bytes = await rawHandshake(http.port, path);
        const text = bytes.toString('latin1');
        const headEnd = bytes.indexOf('\r\n\r\n') + 4;
        assert.ok(text.startsWith('HTTP/1.1 101 Switching Protocols\r\n'), text.slice(0, 40));
        assert.is(text.split('HTTP/1.1').length, 2, `one HTTP status line only: ${JSON.stringify(text)}`);
        const frame = bytes.subarray(headEnd);
        assert.is(frame[0], 0x88, 'a close frame (FIN + opcode 8)');
        assert.is(frame.readUInt16BE(2), 1011);
        assert.not.ok(text.includes('secret internal detail'));
        assert.ok(t.services.log.recent(20).some((e) => e.level === 'error' && e.message.includes('secret internal detail')), 'logged');
      } finally {
        await http.close();
        await t.close();
      }
    }),
  );
}

s.run();
