// The spec's User errors, verbatim, and the 400 of a save naming portal users or groups that do not exist.
import { AppError } from '../errors.ts';

export const USER_ERRORS = {
  read: 'Failed to read user database',
  hash: 'Failed to hash password',
  write: 'Failed to update user database',
  totp: 'Failed to write TOTP configuration',
  exists: 'Username already exists',
  notFound: 'User not found',
  lastUser: 'Cannot delete the last user',
} as const;

/** 400 naming the users (or groups) the portal does not have; `details.users` (`details.groups`) lists them. */
export function unknownNames(kind: 'user' | 'group', names: readonly string[]): AppError {
  const listed = names.map((n) => `'${n}'`).join(', ');
  return new AppError(400, `Unknown ${kind}${names.length === 1 ? '' : 's'} ${listed}`, { [`${kind}s`]: [...names] });
}
