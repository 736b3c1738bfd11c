// A sandbox app after onboarding, hashing at bcrypt cost 4 (cost 12 takes a second per hash;
// test/integration/local/users/real-cost.test.ts checks the real cost), with helpers to seed and read the portal's users.
import bcrypt from 'bcryptjs';
import { InvitationService } from '../../../lib/invitations/service.ts';
import { sandboxControls, type SandboxControls } from '../../../lib/system/sandbox-system.ts';
import type { PortalUser } from '../../../lib/system/types.ts';
import type { PasswordHasher } from '../../../lib/users/password-hasher.ts';
import { UserService } from '../../../lib/users/service.ts';
import { createTestApp, type TestApp, type TestAppOptions } from '../../../lib/testing.ts';

export const DOMAIN = 'example.test';

export interface UserTestApp extends TestApp {
  sandbox: SandboxControls;
}

// On the calling thread: a cost-4 hash takes about a millisecond, starting the worker thread per
// hash (it stops when idle) took 60. The worker itself is test/integration/local/users/password-hasher.test.ts's subject.
const cheapHasher: PasswordHasher = { hash: (password) => bcrypt.hash(password, 4), close: async () => {} };

export function withCheapHashing(t: TestApp): TestApp {
  t.services.hasher = cheapHasher;
  t.services.users = new UserService({ ...t.services, hasher: cheapHasher });
  t.services.invitations = new InvitationService({ ...t.services, users: t.services.users });
  return t;
}

export async function userApp(options?: TestAppOptions): Promise<UserTestApp> {
  const t = withCheapHashing(await createTestApp(options));
  // no portal install: it would need a first user, and these tests start from none (the sandbox
  // writes the users database without it)
  await t.completeOnboarding(DOMAIN);
  return Object.assign(t, { sandbox: sandboxControls(t.services.system) });
}

export const newUser = (username: string, extra: Record<string, unknown> = {}) => ({
  username,
  displayname: `User ${username}`,
  email: `${username}@example.test`,
  password: `pw-${username}-secret`,
  ...extra,
});

export function portalUsers(t: TestApp): Promise<readonly PortalUser[]> {
  return t.services.system.authPortal.readUsers();
}
