import type { PortalUser } from '../../../../lib/system/types.ts';

/** Portal user `n` of the crash storm: a well-formed bcrypt hash (never checked against a password). */
export const portalUser = (n: number): PortalUser => ({
  username: `user${n}`,
  displayname: `User ${n}`,
  email: `user${n}@example.test`,
  groups: ['users'],
  password: `$2b$12$${'a'.repeat(53)}`,
});
