// The allowed plugin scopes are a setting the admin changes in the panel (GET/PATCH
// /api/plugins/settings), validated like the configuration's `plugins.allowedScopes`, audit-logged,
// kept in the configuration file (so a restart keeps them), and used by the next install.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestApp } from '../../../lib/testing.ts';

const s = suite('plugin settings: allowed scopes');

s('a bad list is 400 naming the entry, and changes nothing', async () => {
  const t = await createTestApp({ config: { plugins: { allowedScopes: ['@acme'] } } });
  await t.completeOnboarding();
  try {
    const patch = (body: unknown) => t.call('PATCH', '/api/plugins/settings', { body });
    const cases: [unknown, string][] = [
      [{ allowedScopes: ['acme'] }, 'allowedScopes.0'],
      [{ allowedScopes: ['@ACME'] }, 'allowedScopes.0'],
      [{ allowedScopes: ['@ok', '@bad scope'] }, 'allowedScopes.1'],
      [{ allowedScopes: Array.from({ length: 101 }, (_, i) => `@s${i}`) }, 'allowedScopes'],
      [{ allowedScopes: '@acme' }, 'allowedScopes'],
      [{}, 'allowedScopes'],
    ];
    for (const [body, path] of cases) {
      const answer = await patch(body);
      assert.equal([answer.status, answer.body.error], [400, 'Validation failed'], JSON.stringify(body).slice(0, 80));
      assert.equal(answer.body.details.issues.map((i: { path: string }) => i.path), [path], JSON.stringify(answer.body.details));
    }
    assert.is((await patch({ allowedScopes: ['@acme'], extra: 1 })).status, 400, 'unknown keys are refused');
    assert.equal((await t.call('GET', '/api/plugins/settings')).body, { allowedScopes: ['@acme'] });
    assert.is((await t.call('GET', '/api/plugins/settings', { as: { agent: 'laptop' } })).status, 403, 'admins only');
  } finally {
    await t.close();
  }
});

s('a change is audit-logged, kept across a restart, and checked by the next install', async () => {
  const t = await createTestApp({ durable: true });
  await t.completeOnboarding();
  try {
    assert.equal((await t.call('GET', '/api/plugins/settings')).body, { allowedScopes: [] }, 'none by default');
    assert.is((await t.call('POST', '/api/plugins/install', { body: { spec: '@relay-plugins/x' } })).body.error, 'Scope @relay-plugins is not in plugins.allowedScopes');
    const changed = await t.call('PATCH', '/api/plugins/settings', { body: { allowedScopes: ['@relay-plugins', '@acme', '@acme'] } });
    assert.equal([changed.status, changed.body], [200, { ok: true, settings: { allowedScopes: ['@relay-plugins', '@acme'] } }]);
    // the check install runs before npm: an out-of-scope name is still refused, an allowed one passes it
    assert.is((await t.call('POST', '/api/plugins/install', { body: { spec: '@other/x' } })).body.error, 'Scope @other is not in plugins.allowedScopes');
    assert.is(t.services.config.value.plugins.allowedScopes.includes('@relay-plugins'), true);

    const audit = (await t.call('GET', '/api/audit')).body.entries;
    const event = audit.find((e: { event?: string }) => e.event === 'plugin.scopes-changed');
    assert.equal([event?.outcome, event?.actor.role], ['@relay-plugins @acme', 'admin']);
    assert.ok(audit.some((e: { route?: string; status?: number }) => e.route === '/api/plugins/settings' && e.status === 200), 'the request too');
    await t.close({ keep: true });

    const again = await createTestApp({ dir: t.dir });
    try {
      assert.equal((await again.call('GET', '/api/plugins/settings')).body, { allowedScopes: ['@relay-plugins', '@acme'] });
      assert.equal((await again.call('PATCH', '/api/plugins/settings', { body: { allowedScopes: [] } })).body.settings, { allowedScopes: [] });
    } finally {
      await again.close();
    }
  } finally {
    await t.close().catch(() => {});
  }
});

s.run();
