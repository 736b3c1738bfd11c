import type { PortalUser } from '../../lib/system/types.ts';

/**
 * A first portal user for tests that install the portal by hand: install wants one, as Authelia
 * does. The hash has bcrypt's shape (the writer checks it) but matches no password.
 */
export const FIRST_PORTAL_USER: PortalUser = {
  username: 'admin',
  displayname: 'Administrator',
  email: 'admin@example.test',
  groups: ['admins'],
  password: '$2b$12$' + 'a'.repeat(53),
};
