// The portal's initial `admin` user: a random password, stored only as a bcrypt hash (see
// lib/auth/passwords.ts). The plaintext goes to the final provisioning event and nowhere else.
import { randomInt } from 'node:crypto';
import type { PortalUser } from '../system/types.ts';

export const ADMIN_USERNAME = 'admin';

// no look-alikes (0/O, 1/l/I): the password is read off a screen and typed in once
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
const LENGTH = 20; // about 116 bits

export function generatePassword(): string {
  let out = '';
  for (let i = 0; i < LENGTH; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

/**
 * The user list with `admin` set to the new hash. A retry replaces the entry made by an earlier
 * run (nobody has seen that password: it is only shown on completion) and keeps every other user.
 */
export function withAdmin(users: readonly PortalUser[], opts: { hash: string; email: string; adminGroup: string }): PortalUser[] {
  const existing = users.find((u) => u.username === ADMIN_USERNAME);
  const admin: PortalUser = {
    username: ADMIN_USERNAME,
    displayname: existing?.displayname ?? 'Administrator',
    email: existing?.email || opts.email,
    groups: [...new Set([...(existing?.groups ?? []), opts.adminGroup])],
    password: opts.hash,
  };
  return [...users.filter((u) => u.username !== ADMIN_USERNAME), admin];
}
