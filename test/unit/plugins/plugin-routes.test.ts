// What a plugin's server module may export (lib/http/plugin-host.ts), through the
// testing kit's mountPlugin, which checks exactly as enabling does.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestApp, type TestApp } from '../../../lib/testing.ts';

const s = suite('plugin routes');
const ok = () => Response.json({ ok: true });

async function withKit(body: (kit: TestApp) => Promise<void>): Promise<void> {
  const kit = await createTestApp({ seed: { onboarded: true } });
  try {
    await body(kit);
  } finally {
    await kit.close();
  }
}

const mount = (kit: TestApp, routes: unknown, capabilities: string[] = []) =>
  kit.mountPlugin({ name: 'demo', module: { routes }, capabilities });

s('a module without a routes array is refused', () =>
  withKit(async (kit) => {
    assert.throws(() => kit.mountPlugin({ name: 'demo', module: {} }), /must export `routes`/);
    assert.throws(() => mount(kit, { method: 'GET' }), /must export `routes`/);
  }),
);

s('each route needs a method, a path under /api/<name>/ and a handler', () =>
  withKit(async (kit) => {
    assert.throws(() => mount(kit, [null]), /route 0 is not an object/);
    assert.throws(() => mount(kit, [{ method: 'TRACE', path: '/api/demo/x', handle: ok }]), /route 0: method must be one of/);
    assert.throws(() => mount(kit, [{ method: 'GET', path: '/api/demo/x' }]), /handle must be a function/);
    assert.throws(() => mount(kit, [{ method: 'GET', path: '/api/tunnels', handle: ok }]), /outside \/api\/demo\//);
    assert.throws(() => mount(kit, [{ kind: 'ws', method: 'GET', path: '/api/demo/x', connect: ok }]), /only HTTP routes/);
    assert.throws(() => mount(kit, [{ method: 'GET', path: '/api/demo/x', query: { parse: ok }, handle: ok }]), /query must be a zod schema/);
  }),
);

s('no public, 2FA-exempt or ungated plugin routes; agents only with one of the plugin capabilities', () =>
  withKit(async (kit) => {
    const withAccess = (access: unknown, capabilities?: string[]) => mount(kit, [{ method: 'GET', path: '/api/demo/x', access, handle: ok }], capabilities);
    assert.throws(() => withAccess({ public: true }), /access may only name roles and capability \(not public\)/);
    assert.throws(() => withAccess({ twoFactorExempt: true }), /not twoFactorExempt/);
    assert.throws(() => withAccess({ gate: 'open' }), /not gate/);
    assert.throws(() => withAccess({ roles: ['root'] }), /roles must be 'admin' and\/or 'agent'/);
    assert.throws(() => withAccess({ roles: ['agent'] }, ['demo:read']), /needs one of the plugin's capabilities \(demo:read\)/);
    assert.throws(() => withAccess({ roles: ['agent'], capability: 'tunnels:read' }, ['demo:read']), /needs one of the plugin's capabilities/);
    withAccess({ roles: ['agent'], capability: 'demo:read', gate: 'management' }, ['demo:read']);
    const agent = await kit.fetch('/api/demo/x', { headers: kit.as.agent('box', ['demo:read']) });
    assert.is(agent.status, 200);
    assert.is((await kit.fetch('/api/demo/x', { headers: kit.as.agent('other', ['tunnels:read']) })).status, 403);
  }),
);

s('the whole chain applies: certificate, onboarding gate, admin-only by default, admin 2FA', async () => {
  const kit = await createTestApp();
  try {
    mount(kit, [{ method: 'GET', path: '/api/demo/x', handle: ok }]);
    assert.is((await kit.fetch('/api/demo/x', { headers: kit.as.none() })).status, 403);
    assert.is((await kit.fetch('/api/demo/x', { headers: kit.as.admin() })).status, 503, 'management gate before onboarding');
    await kit.services.config.update({ domain: 'example.test', email: 'ops@example.test', onboarding: { status: 'COMPLETED' } });
    assert.is((await kit.fetch('/api/demo/x', { headers: kit.as.admin() })).status, 200);
    assert.is((await kit.fetch('/api/demo/x', { headers: kit.as.agent('box', ['demo:read']) })).status, 403);
    await kit.services.config.update({ panel2fa: { enabled: true, secret: 'JBSWY3DPEHPK3PXP', setupComplete: true } });
    const twoFactor = await kit.fetch('/api/demo/x', { headers: kit.as.admin() });
    assert.is(twoFactor.status, 401);
    assert.equal(await twoFactor.json(), { error: '2fa_required' });
  } finally {
    await kit.close();
  }
});

s.run();
