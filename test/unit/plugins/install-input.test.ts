// POST /api/plugins/install takes Portlama's `packageName` as well as our `spec`, checked
// by the same rules before npm runs (so no npm here; test/integration/plugins installs for real).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestApp } from '../../../lib/testing.ts';

const s = suite('plugin install input');

s('packageName or spec, exactly one, each refused by the spec rules', async () => {
  const t = await createTestApp({ config: { plugins: { allowedScopes: ['@acme'] } } });
  await t.completeOnboarding();
  const install = (body: unknown) => t.call('POST', '/api/plugins/install', { body });
  try {
    const unscoped = await install({ packageName: 'some-random-package' });
    assert.equal([unscoped.status, unscoped.body.error], [400, 'Plugin spec must be an npm name under an allowed scope (@scope/name) or a file: tarball']);
    assert.is((await install({ packageName: '@other/thing' })).body.error, 'Scope @other is not in plugins.allowedScopes');
    assert.is((await install({ spec: '@other/thing' })).body.error, 'Scope @other is not in plugins.allowedScopes', 'spec as before');
    for (const body of [{ packageName: '' }, {}, { spec: '@acme/a', packageName: '@acme/a' }, { name: '@acme/a' }]) {
      const answer = await install(body);
      assert.equal([answer.status, answer.body.error], [400, 'Validation failed'], JSON.stringify(body));
    }
  } finally {
    await t.close();
  }
});

s.run();
