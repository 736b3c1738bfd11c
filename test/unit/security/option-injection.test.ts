// Attack: a request value that reaches a program's argv as an option. The onboarding email goes to
// certbot as the value after `--email`; zod's email format accepts a local part starting with `-`,
// so `--agree-tos@x` or `-h@x` would be read by certbot's parser as an option of its own.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { totpGenerateArgs } from '../../../lib/system/auth-portal/host.ts';
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

s('a portal username starting with "-" (the spec allows it) reaches the authelia CLI only as the argument after `--`', async () => {
  await t.completeOnboarding();
  const user = { displayname: 'X', email: 'x@example.test', password: 'a long password' };
  for (const username of ['--config', '-h', '--force']) {
    assert.is((await t.call('POST', '/api/users', { body: { username, ...user } })).status, 201, username);
    // what the host portal runs: every user-given word after the end of the options
    const args = totpGenerateArgs(username, 'JBSWY3DPEHPK3PXP', '/etc/authelia/configuration.yml');
    assert.equal(args.slice(-2), ['--', username]);
    assert.equal(args.slice(0, -2), totpGenerateArgs('alice', 'JBSWY3DPEHPK3PXP', '/etc/authelia/configuration.yml').slice(0, -2), 'the options are the same whoever the user');
  }
});

s.run();
