// The spec's User errors, verbatim.
export const USER_ERRORS = {
  read: 'Failed to read user database',
  hash: 'Failed to hash password',
  write: 'Failed to update user database',
  totp: 'Failed to write TOTP configuration',
  exists: 'Username already exists',
  notFound: 'User not found',
  lastUser: 'Cannot delete the last user',
} as const;
