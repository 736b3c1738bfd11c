// Attack: a page the admin's browser visits (another site, or a sibling site or tunneled app under
// the box's own domain) makes the browser send a request to the panel; the browser presents the
// admin certificate on its own, so without a check of where the request came from it acts as admin.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestApp, type TestApp } from '../../../lib/testing.ts';
import { serve } from '../../helpers/http-server.ts';
import { withTimeout } from '../../helpers/timeout.ts';
import { refusedUpgrade } from '../../helpers/websocket.ts';

const s = suite('security: cross-origin requests with the admin certificate');
let t: TestApp;

s.before.each(async () => {
  t = await createTestApp();
  await t.completeOnboarding();
});
s.after.each(() => t.close());

const PANEL = 'panel.example.test';
const createTunnel = (headers: Record<string, string>) =>
  t.call('POST', '/api/tunnels', { body: { subdomain: 'app', port: 8080 }, headers: { 'x-forwarded-host': PANEL, ...headers } });
const tunnelCount = async () => (await t.call('GET', '/api/tunnels')).body.tunnels.length;

s('a form post from another site is refused before anything is created', async () => {
  const r = await createTunnel({ origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' });
  assert.equal([r.status, r.body], [403, { error: 'Cross-origin request refused' }]);
  assert.is(await tunnelCount(), 0);
});

s('a browser without Fetch Metadata is judged by its Origin against the host nginx forwarded', async () => {
  assert.is((await createTunnel({ origin: 'https://evil.example' })).status, 403);
  assert.is((await createTunnel({ origin: 'null' })).status, 403, 'a sandboxed iframe or data: page');
  assert.is((await createTunnel({ origin: 'https://panel.example.test.evil.example' })).status, 403);
  assert.is(await tunnelCount(), 0);
});

s('a sibling site or tunneled app of the same domain is same-site, not same-origin: refused', async () => {
  const r = await createTunnel({ origin: 'https://docs.example.test', 'sec-fetch-site': 'same-site' });
  assert.is(r.status, 403);
  assert.is((await createTunnel({ origin: 'https://docs.example.test' })).status, 403);
  assert.is(await tunnelCount(), 0);
});

s('a cross-site GET of a one-time download is refused too (a link or an img on another page)', async () => {
  const r = await t.call('GET', '/api/certs/mtls/download', { headers: { 'sec-fetch-site': 'cross-site' } });
  assert.equal([r.status, r.body], [403, { error: 'Cross-origin request refused' }]);
});

s('the panel itself, the IP panel with its port, an address typed by hand, curl and agents pass', async () => {
  assert.is((await createTunnel({ origin: `https://${PANEL}`, 'sec-fetch-site': 'same-origin' })).status, 201);
  const ip = await t.call('DELETE', `/api/tunnels/${(await t.call('GET', '/api/tunnels')).body.tunnels[0].id}`, {
    headers: { origin: 'https://203.0.113.10:9292', 'x-forwarded-host': '203.0.113.10:9292', 'sec-fetch-site': 'same-origin' },
  });
  assert.is(ip.status, 200, JSON.stringify(ip.body));
  assert.is((await t.call('GET', '/api/tunnels', { headers: { 'sec-fetch-site': 'none' } })).status, 200);
  assert.is((await t.call('GET', '/api/tunnels')).status, 200);
  await t.addAgent('ci', ['tunnels:read']);
  assert.is((await t.call('GET', '/api/tunnels/agent-config', { as: { agent: 'ci' } })).status, 200);
});

s('public routes carry no certificate authority and stay reachable from the invite page anywhere', async () => {
  const r = await t.call('GET', `/api/invite/${'ab'.repeat(32)}`, { as: 'none', headers: { origin: 'https://elsewhere.example', 'sec-fetch-site': 'cross-site' } });
  assert.is(r.status, 404);
});

s('a WebSocket opened by another site (service logs) is refused at the handshake', () =>
  withTimeout('cross-origin ws', 5000, async () => {
    const http = await serve(t.app);
    try {
      const refused = await refusedUpgrade(`ws://127.0.0.1:${http.port}/api/services/proxy/logs`, 'admin', {
        headers: { 'x-forwarded-host': PANEL },
        origin: 'https://evil.example',
      });
      assert.equal(refused, { status: 403, body: { error: 'Cross-origin request refused' } });
    } finally {
      await http.close();
    }
  }),
);

s.run();
