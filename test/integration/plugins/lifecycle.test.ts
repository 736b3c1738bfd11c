// Integration (runs the real npm: pack and install). Plugins packed with npm pack, installed through the API, enabled, called, disabled,
// deleted; broken plugins never take the panel down.
import { existsSync } from 'node:fs';
import { readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routes } from '../../../handlers/index.ts';
import { callerHeaders, createTestApp, type TestApp } from '../../../lib/testing.ts';
import { serve } from '../../helpers/http-server.ts';
import { packFixtures } from '../../helpers/plugins.ts';
import { withTimeout } from '../../helpers/timeout.ts';

const s = suite('plugin life cycle');
const packed = await packFixtures('hello', 'boom', 'crash', 'reserved');

async function panel(options: { dir?: string } = {}): Promise<TestApp> {
  const t = await createTestApp({ config: { plugins: { allowedScopes: [], localDir: packed.dir } }, durable: !options.dir, dir: options.dir });
  await t.completeOnboarding();
  return t;
}

const install = (t: TestApp, name: string) => t.call('POST', '/api/plugins/install', { body: { spec: packed.specs[name] } });

/** The answer fits the schema its route documents in GET /api/openapi.json. */
function documents(method: string, pattern: string, answer: { status: number; body: unknown }): void {
  const spec = routes.find((r) => r.method === method && r.path === pattern)?.response;
  assert.ok(spec, `${method} ${pattern} documents no response`);
  assert.is(answer.status, spec.status ?? 200);
  const parsed = spec.schema.safeParse(answer.body);
  assert.ok(parsed.success, `${method} ${pattern}: ${parsed.error?.message}`);
}

s.after(() => rm(packed.dir, { recursive: true, force: true }));

s('install, call, fetch panel.js, disable (404), enable again, delete: on a running server', () =>
  withTimeout('hello', 60_000, async () => {
    const t = await panel();
    const http = await serve(t.app);
    const get = (path: string) => fetch(`${http.url}${path}`, { headers: callerHeaders('admin') });
    try {
      const installed = await install(t, 'hello');
      assert.is(installed.status, 201, JSON.stringify(installed.body));
      documents('POST', '/api/plugins/install', installed);
      assert.equal(installed.body.plugin, {
        ...installed.body.plugin,
        name: 'hello',
        displayName: 'Hello',
        packageName: '@relay-test/hello',
        version: '1.2.3',
        capabilities: ['hello:read'],
        status: 'disabled',
        enabledAt: null,
      });
      const events = (await t.services.audit.read({ limit: 50 })).filter((e) => e.event === 'plugin.installed');
      assert.equal(events.map((e) => [e.target, e.outcome, e.actor.role]), [['hello', '1.2.3', 'admin']]);
      assert.is((await get('/api/hello/greet')).status, 404, 'not mounted before enable');
      const listed = await t.call('GET', '/api/plugins');
      documents('GET', '/api/plugins', listed);
      assert.equal(listed.body.plugins.map((p: { name: string }) => p.name), ['hello']);
      const shown = await t.call('GET', '/api/plugins/hello');
      documents('GET', '/api/plugins/:name', shown);
      assert.is(shown.body.version, '1.2.3');

      const enabled = await t.call('POST', '/api/plugins/hello/enable');
      documents('POST', '/api/plugins/:name/enable', enabled);
      assert.equal(enabled.body, { ok: true, name: 'hello', status: 'enabled' });
      const greet = await get('/api/hello/greet');
      assert.is(greet.status, 200);
      assert.equal(await greet.json(), { hello: 'world', role: 'admin', calls: 1 });
      const bundle = await get('/api/hello/panel.js');
      assert.is(bundle.status, 200);
      assert.match(bundle.headers.get('content-type') ?? '', /javascript/);
      assert.match(await bundle.text(), /Hello from the hello plugin/);

      const disabled = await t.call('POST', '/api/plugins/hello/disable');
      documents('POST', '/api/plugins/:name/disable', disabled);
      assert.equal(disabled.body, { ok: true, name: 'hello', status: 'disabled' });
      const gone = await get('/api/hello/greet');
      assert.is(gone.status, 404);
      assert.equal(await gone.json(), { error: 'Not found' });
      assert.is((await get('/api/hello/panel.js')).status, 404);

      await t.call('POST', '/api/plugins/hello/enable');
      // a fresh import: the module's state starts over
      assert.equal(await (await get('/api/hello/greet')).json(), { hello: 'world', role: 'admin', calls: 1 });

      const deleted = await t.call('DELETE', '/api/plugins/hello');
      documents('DELETE', '/api/plugins/:name', deleted);
      assert.equal(deleted.body, { ok: true, name: 'hello' });
      assert.is((await get('/api/hello/greet')).status, 404);
      assert.is((await t.call('GET', '/api/plugins/hello')).body.error, "Plugin 'hello' not found");
      assert.not.ok(existsSync(join(t.services.plugins.dir, 'hello')), 'files removed');
    } finally {
      await http.close();
      await t.close();
    }
  }),
);

s('plugin routes: admin-only by default, agents with a plugin capability where the route allows; capabilities join the set while enabled', () =>
  withTimeout('access', 60_000, async () => {
    const t = await panel();
    try {
      await install(t, 'hello');
      await t.addAgent('reader', ['hello:read']);
      await t.addAgent('plain', []);
      const grant = () => t.call('PATCH', '/api/certs/agent/plain/capabilities', { body: { capabilities: ['hello:read'] } });
      assert.is((await grant()).body.error, "Unknown capability 'hello:read'", 'not granted while disabled');

      await t.call('POST', '/api/plugins/hello/enable');
      assert.is((await t.call('GET', '/api/hello/greet', { as: { agent: 'reader' } })).status, 403, 'admin-only by default');
      assert.equal((await t.call('GET', '/api/hello/agents', { as: { agent: 'reader' } })).body, { hello: 'reader' });
      assert.is((await t.call('GET', '/api/hello/agents', { as: { agent: 'plain' } })).body.error, 'Insufficient certificate capability');
      assert.is((await t.call('GET', '/api/hello/agents', { as: 'none' })).body.error, 'mTLS certificate required');
      assert.is((await grant()).status, 200, 'the capability joins the set once enabled');
      assert.is((await t.call('GET', '/api/hello/panel.js', { as: { agent: 'reader' } })).status, 403);

      await t.call('POST', '/api/plugins/hello/disable');
      await t.call('PATCH', '/api/certs/agent/plain/capabilities', { body: { capabilities: [] } });
      assert.is((await grant()).body.error, "Unknown capability 'hello:read'", 'and leaves it when disabled');
    } finally {
      await t.close();
    }
  }),
);

s('enabled plugins are mounted again after a restart; disabled ones stay off', () =>
  withTimeout('restart', 60_000, async () => {
    const first = await panel();
    const dir = first.dir;
    await install(first, 'hello');
    await install(first, 'boom');
    await first.call('POST', '/api/plugins/hello/enable');
    await first.close({ keep: true });
    const second = await panel({ dir });
    try {
      assert.is((await second.call('GET', '/api/hello/greet')).status, 200);
      assert.is((await second.call('GET', '/api/boom/fine')).status, 404);
      assert.equal(
        (await second.call('GET', '/api/plugins')).body.plugins.map((p: { name: string; status: string }) => [p.name, p.status]),
        [['boom', 'disabled'], ['hello', 'enabled']],
      );
    } finally {
      await second.close();
    }
  }),
);

s('an enabled plugin that no longer loads at start is left disabled; the panel starts without it', () =>
  withTimeout('restart broken', 60_000, async () => {
    const first = await panel();
    const dir = first.dir;
    await install(first, 'hello');
    await first.call('POST', '/api/plugins/hello/enable');
    const server = join(first.services.plugins.dir, 'hello', 'node_modules', '@relay-test', 'hello', 'server.js');
    await first.close({ keep: true });
    await writeFile(server, "throw new Error('broken since');\n");
    const second = await panel({ dir });
    try {
      assert.is((await second.call('GET', '/api/health')).status, 200);
      assert.is((await second.call('GET', '/api/plugins/hello')).body.status, 'disabled');
      assert.is((await second.call('GET', '/api/hello/greet')).status, 404);
      assert.is((await second.call('POST', '/api/plugins/hello/enable')).body.error, "Plugin 'hello' failed to load: broken since");
    } finally {
      await second.close();
    }
  }),
);

s('a handler that throws answers a JSON 500; its other routes and the panel keep working', () =>
  withTimeout('boom', 60_000, async () => {
    const t = await panel();
    try {
      await install(t, 'boom');
      await t.call('POST', '/api/plugins/boom/enable');
      const exploded = await t.call('GET', '/api/boom/explode');
      assert.is(exploded.status, 500);
      assert.is(exploded.body.error, 'Internal server error');
      assert.equal((await t.call('GET', '/api/boom/fine')).body, { fine: true });
      assert.is((await t.call('GET', '/api/health')).status, 200);
      assert.is((await t.call('GET', '/api/plugins')).status, 200);
    } finally {
      await t.close();
    }
  }),
);

s('a module that throws on import: enable fails clearly and nothing is mounted', () =>
  withTimeout('crash', 60_000, async () => {
    const t = await panel();
    try {
      assert.is((await install(t, 'crash')).status, 201);
      const enabled = await t.call('POST', '/api/plugins/crash/enable');
      assert.is(enabled.status, 400);
      assert.is(enabled.body.error, "Plugin 'crash' failed to load: crash plugin cannot start");
      assert.is((await t.call('GET', '/api/plugins/crash')).body.status, 'disabled');
      assert.is((await t.call('GET', '/api/crash/anything')).status, 404);
      assert.is((await t.call('GET', '/api/health')).status, 200);
    } finally {
      await t.close();
    }
  }),
);

s('a bad manifest rolls the install back with 400 naming the problem; a second install is 409', () =>
  withTimeout('manifest', 60_000, async () => {
    const t = await panel();
    try {
      const reserved = await install(t, 'reserved');
      assert.is(reserved.status, 400);
      assert.is(reserved.body.error, "Invalid plugin manifest: name 'tunnels' is a reserved API prefix");
      assert.equal((await t.call('GET', '/api/plugins')).body, { plugins: [] });
      assert.equal((await readdir(t.services.plugins.dir)).filter((f) => !f.startsWith('.npm')), [], 'no files left');
      await install(t, 'hello');
      const again = await install(t, 'hello');
      assert.is(again.status, 409);
      assert.is(again.body.error, "Plugin 'hello' is already installed");
    } finally {
      await t.close();
    }
  }),
);

s('accepted specs: allowed scopes, tarballs under localDir, any tarball only in development mode', async () => {
  const t = await createTestApp({ config: { plugins: { allowedScopes: ['@acme'], localDir: join(packed.dir, 'elsewhere') } } });
  await t.completeOnboarding();
  const dev = await createTestApp({ mode: 'development', config: { plugins: { allowedScopes: [] } } });
  await dev.completeOnboarding();
  try {
    const attempt = async (spec: string, app = t) => (await app.call('POST', '/api/plugins/install', { body: { spec } })).body.error;
    assert.is(await attempt('@other/thing'), 'Scope @other is not in plugins.allowedScopes');
    assert.is(await attempt('--registry=http://evil/ @acme/x'), 'Plugin spec must be an npm name under an allowed scope (@scope/name) or a file: tarball');
    assert.is(await attempt(packed.specs.hello!), `Plugin tarball must be under ${join(packed.dir, 'elsewhere')}`);
    assert.is(await attempt(`file:${join(packed.dir, 'elsewhere', '..', 'x.tgz')}`), `Plugin tarball not found: ${join(packed.dir, 'elsewhere', '..', 'x.tgz')}`);
    assert.is(await attempt('file:relative.tgz'), 'A file: plugin spec must be an absolute path to a .tgz tarball');
    // Portlama's field names the same spec; the other installs here use `spec`
    const installed = await dev.call('POST', '/api/plugins/install', { body: { packageName: packed.specs.hello } });
    assert.is(installed.status, 201, JSON.stringify(installed.body));
    assert.is(installed.body.plugin.name, 'hello');
  } finally {
    await t.close();
    await dev.close();
  }
});

s.run();
