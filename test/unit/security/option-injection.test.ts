// Attack: a request value that reaches a program's argv as an option. The onboarding email goes to
// certbot as the value after `--email`; zod's email format accepts a local part starting with `-`,
// so `--agree-tos@x` or `-h@x` would be read by certbot's parser as an option of its own.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestApp, type TestApp } from '../../../lib/testing.ts';
import { withCheapHashing } from '../users/support.ts';

const s = suite('security: request values never reach an argv as an option');
let t: TestApp;
s.before.each(async () => {
  // bcrypt cost 4: the user created at the end is about its name, not its hash
  t = withCheapHashing(await createTestApp());
});
s.after.each(() => t.close());

s('an onboarding email starting with "-" (the certbot --email value) is a validation failure, nothing stored', async () => {
  for (const email of ['--agree-tos@example.com', '-h@example.com', ' --server@example.com']) {
    const r = await t.call('POST', '/api/onboarding/domain', { body: { domain: 'relay.example.com', email } });
    assert.is(r.status, 400, email);
    assert.is(r.body.error, 'Validation failed');
    assert.equal(r.body.details.issues.map((i: { path: unknown }) => String(i.path)), ['email']);
  }
  assert.is(t.services.config.value.email, null);
  assert.is((await t.call('POST', '/api/onboarding/domain', { body: { domain: 'relay.example.com', email: 'a-b@example.com' } })).status, 200);
});

s('a portal username starting with "-" (the authelia totp generate argument) cannot be created or invited', async () => {
  await t.completeOnboarding();
  const user = { displayname: 'X', email: 'x@example.test', password: 'a long password' };
  for (const username of ['--config', '-h', '--force']) {
    const created = await t.call('POST', '/api/users', { body: { username, ...user } });
    assert.equal([created.status, created.body.error], [400, 'Validation failed'], username);
    const invited = await t.call('POST', '/api/invitations', { body: { username, email: 'x@example.test' } });
    assert.equal([invited.status, invited.body.error], [400, 'Validation failed'], username);
    // a path names an existing user or none (404, the users routes' rule): no such user can exist
    const reset = await t.call('POST', `/api/users/${username}/reset-totp`);
    assert.equal([reset.status, reset.body.error], [404, 'User not found'], username);
  }
  assert.is((await t.call('POST', '/api/users', { body: { username: 'a-', ...user } })).status, 201);
});

s.run();
