// bcrypt at production's cost 12 (lib/auth/passwords.ts), as the panel makes it: about a second of
// real hashing per case, so in the local integration lane. The unit suites hash at cost 4
// (withCheapHashing, CHEAP_ONBOARDING) and check everything else about these routes.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { CompleteEvent } from '../../../../lib/onboarding/events.ts';
import { createTestApp } from '../../../../lib/testing.ts';
import { provisionAndWait, walkToDnsReady } from '../../../unit/onboarding/support.ts';

const s = suite('passwords at the real cost');

// bcrypt.compare here would hold this thread for another second: that a worker's hash verifies is
// proved at a cheap cost in password-hasher.test.ts
s('the users service hashes bcrypt $2b$12 on the worker thread', async () => {
  const t = await createTestApp();
  try {
    const hash = await t.services.hasher.hash('a-password');
    assert.match(hash, /^\$2b\$12\$/);
  } finally {
    await t.close();
  }
});

s('provisioning with the default settings gives the portal admin a cost-12 hash', async () => {
  const t = await createTestApp();
  try {
    await walkToDnsReady(t);
    const { outcome } = await provisionAndWait(t);
    assert.is(outcome.type, 'complete', JSON.stringify(outcome));
    assert.is((outcome as CompleteEvent).credentials.username, 'admin');
    const admin = (await t.services.system.authPortal.readUsers()).find((u) => u.username === 'admin')!;
    assert.match(admin.password, /^\$2[aby]\$12\$/);
  } finally {
    await t.close();
  }
});

s.run();
