import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routes } from '../../../handlers/index.ts';
import { clientAddress } from '../../../lib/http/client-address.ts';
import { createTestApp } from '../../../lib/testing.ts';
import { serve } from '../../helpers/http-server.ts';
import { withTimeout } from '../../helpers/timeout.ts';
import { testRoutes } from './test-routes.ts';

const s = suite('forwarded headers: one proxy hop');

s('the proxy on loopback: its appended (last) entry is the client', () => {
  assert.is(clientAddress('127.0.0.1', '198.51.100.7'), '198.51.100.7');
  assert.is(clientAddress('::ffff:127.0.0.1', '198.51.100.7'), '198.51.100.7');
});

s('client-supplied entries before the last hop are ignored', () => {
  assert.is(clientAddress('127.0.0.1', '10.0.0.1, 1.2.3.4, 198.51.100.7'), '198.51.100.7');
});

s('a peer that is not the local proxy is the client; its header is ignored', () => {
  assert.is(clientAddress('198.51.100.9', '127.0.0.1'), '198.51.100.9');
});

s('garbage in the last entry falls back to the peer; no header means the peer', () => {
  assert.is(clientAddress('127.0.0.1', '1.2.3.4, not-an-ip'), '127.0.0.1');
  assert.is(clientAddress('127.0.0.1', null), '127.0.0.1');
  assert.is(clientAddress(undefined, '1.2.3.4'), undefined);
});

s('over node:http the handler sees the hop the local proxy appended', () =>
  withTimeout('client address', 5000, async () => {
    const t = await createTestApp({ routes: [...routes, ...testRoutes] });
    const http = await serve(t.app);
    try {
      const res = await fetch(`${http.url}/api/test/client-address`, { headers: { 'x-forwarded-for': '10.9.9.9, 198.51.100.7' } });
      assert.equal(await res.json(), { address: '198.51.100.7' });
      const plain = await t.call('GET', '/api/test/client-address');
      assert.equal(plain.body, { address: null });
    } finally {
      await http.close();
      await t.close();
    }
  }),
);

s.run();
