// Attack: DNS rebinding against a development panel (`npm start` on a laptop: every caller is admin).
// A page on evil.example makes its name resolve to 127.0.0.1; the browser then sends the page's own
// same-origin requests, reading every answer, to http://evil.example:3100/ with Host
// `evil.example:3100`, and may set any header it likes (X-Forwarded-Host, X-SSL-*). Only the Host,
// which page scripts cannot set, tells the panel the request was not meant for it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestApp, type TestApp } from '../../../lib/testing.ts';
import { serve } from '../../helpers/http-server.ts';
import { rawExchange, rawHead } from '../../helpers/raw-http.ts';
import { withTimeout } from '../../helpers/timeout.ts';
import { refusedUpgrade } from '../../helpers/websocket.ts';

const s = suite('security: a development panel answers only requests addressed to a loopback host');
let t: TestApp;
let http: Awaited<ReturnType<typeof serve>>;
s.before.each(async () => {
  t = await createTestApp({ mode: 'development' });
  await t.completeOnboarding();
  http = await serve(t.app);
});
s.after.each(async () => {
  await http.close();
  await t.close();
});

const get = (path: string, host: string, extra: [string, string][] = []) =>
  rawExchange(http.port, rawHead('GET', path, [['Host', host], ...extra, ['Connection', 'close']]));

s('a rebound name is refused on certificate-guarded routes, whatever headers the page adds', () =>
  withTimeout('rebinding', 8000, async () => {
    for (const host of [`evil.example:${http.port}`, 'evil.example', `127.0.0.1.evil.example:${http.port}`]) {
      const r = await get('/api/certs/mtls/download', host, [['X-Forwarded-Host', host], ['Sec-Fetch-Site', 'same-origin']]);
      assert.equal([r.status, r.json()], [403, { error: 'Development mode answers only loopback hosts' }], host);
    }
    const refused = await refusedUpgrade(`ws://127.0.0.1:${http.port}/api/services/proxy/logs`, 'none', { headers: { host: `evil.example:${http.port}` } });
    assert.equal(refused, { status: 403, body: { error: 'Development mode answers only loopback hosts' } });
  }),
);

s('loopback hosts answer as before; public routes and the client pages are not guarded', () =>
  withTimeout('loopback', 8000, async () => {
    for (const host of [`127.0.0.1:${http.port}`, `localhost:${http.port}`, 'localhost', `[::1]:${http.port}`, '127.0.0.2']) {
      assert.is((await get('/api/tunnels', host)).status, 200, host);
    }
    assert.is((await get('/api/health', 'evil.example')).status, 200);
    assert.is((await get('/', 'evil.example')).status, 200);
  }),
);

s.run();
