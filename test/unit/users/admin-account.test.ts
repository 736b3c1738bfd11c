// The `admin` account made by provisioning is an ordinary portal user: listed, and the way to set
// a new password when the one shown on the provisioning stream was missed (README).
import bcrypt from 'bcryptjs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestApp } from '../../../lib/testing.ts';
import { CHEAP_ONBOARDING, provisionAndWait, walkToDnsReady } from '../onboarding/support.ts';
import { portalUsers, withCheapHashing } from './support.ts';

const s = suite('users: the provisioned admin account');

s('after provisioning, admin is listed and PUT /api/users/admin sets a new password', async () => {
  const t = withCheapHashing(await createTestApp({ onboarding: CHEAP_ONBOARDING }));
  try {
    await walkToDnsReady(t);
    const { outcome } = await provisionAndWait(t);
    assert.is(outcome.type, 'complete');
    const shown = (outcome as { credentials?: { password: string } }).credentials!.password;
    const list = await t.call('GET', '/api/users');
    assert.equal(list.body.users.map((u: { username: string; groups: string[] }) => [u.username, u.groups]), [['admin', ['admins']]]);

    const res = await t.call('PUT', '/api/users/admin', { body: { password: 'a new long password' } });
    assert.is(res.status, 200);
    assert.equal(res.body.user.groups, ['admins'], 'still an admin');
    const admin = (await portalUsers(t)).find((u) => u.username === 'admin')!;
    assert.ok(await bcrypt.compare('a new long password', admin.password));
    assert.not.ok(await bcrypt.compare(shown, admin.password), 'the provisioning password no longer works');
    assert.equal((await t.call('DELETE', '/api/users/admin')).body, { error: 'Cannot delete the last user' });
  } finally {
    await t.close();
  }
});

s.run();
