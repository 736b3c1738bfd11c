// Routes mounted and unmounted while the server runs.
import { z } from 'zod';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { json } from '../../../lib/http/responses.ts';
import { ADMIN_OR_AGENT, route } from '../../../lib/http/route.ts';
import { callerHeaders, createTestApp } from '../../../lib/testing.ts';
import { serve } from '../../helpers/http-server.ts';
import { withTimeout } from '../../helpers/timeout.ts';

const s = suite('live mount point');

const greet = route({
  method: 'GET',
  path: '/api/hello/greet/:name',
  access: { roles: ADMIN_OR_AGENT, capability: 'hello:read', gate: 'management' },
  params: z.object({ name: z.string().regex(/^[a-z]+$/, 'name must be lower-case letters') }),
  handle: ({ params, identity }) => json({ hello: params.name, role: identity.role }),
});

s('mount, call, unmount, call again: 404, on the same running server', () =>
  withTimeout('mount', 5000, async () => {
    const t = await createTestApp();
    const http = await serve(t.app);
    const get = (path: string) => fetch(`${http.url}${path}`, { headers: callerHeaders('admin') });
    try {
      await t.completeOnboarding();
      assert.is((await get('/api/hello/greet/ann')).status, 404);
      t.app.mount('hello', [greet]);
      const mounted = await get('/api/hello/greet/ann');
      assert.is(mounted.status, 200);
      assert.equal(await mounted.json(), { hello: 'ann', role: 'admin' });
      assert.ok(t.app.unmount('hello'));
      const gone = await get('/api/hello/greet/ann');
      assert.is(gone.status, 404);
      assert.equal(await gone.json(), { error: 'Not found' });
      assert.not.ok(t.app.unmount('hello'));
    } finally {
      await http.close();
      await t.close();
    }
  }),
);

s('mounted routes pass the whole chain: identity, gate, access, validation', async () => {
  const t = await createTestApp();
  try {
    t.app.mount('hello', [greet]);
    assert.is((await t.call('GET', '/api/hello/greet/ann', { as: 'none' })).body.error, 'mTLS certificate required');
    assert.is((await t.call('GET', '/api/hello/greet/ann')).status, 503);
    await t.completeOnboarding();
    await t.addAgent('plain', []);
    assert.is((await t.call('GET', '/api/hello/greet/ann', { as: { agent: 'plain' } })).body.error, 'Insufficient certificate capability');
    await t.addAgent('reader', ['hello:read'], [], 'C1');
    assert.equal((await t.call('GET', '/api/hello/greet/ann', { as: { agent: 'reader', serial: 'C1' } })).body, { hello: 'ann', role: 'agent' });
    const invalid = await t.call('GET', '/api/hello/greet/Ann');
    assert.is(invalid.status, 400);
    assert.is(invalid.body.error, 'Validation failed');
    assert.is((await t.call('HEAD', '/api/hello/greet/ann')).status, 200);
  } finally {
    await t.close();
  }
});

s('a mount cannot shadow a built-in route or leave its prefix', async () => {
  const t = await createTestApp();
  try {
    assert.throws(() => t.app.mount('tunnels', []), /taken by a built-in route/);
    assert.throws(() => t.app.mount('other', [greet]), /outside \/api\/other\//);
    assert.throws(() => t.app.mount('Bad Name', []), /lower-case/);
    t.app.mount('hello', [greet]);
    assert.throws(() => t.app.mount('hello', [greet]), /already mounted/);
  } finally {
    await t.close();
  }
});

s.run();
