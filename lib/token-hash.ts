import { createHash, timingSafeEqual } from 'node:crypto';

// One-time tokens (invitations, enrollment) are shown once and stored only as a hash, so a copy
// of the data directory grants nothing.

/** What is stored instead of the token: sha-256, hex. */
export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** Constant-time comparison of a presented token's hash with a stored one. */
export function sameTokenHash(presented: string, stored: string): boolean {
  const a = Buffer.from(presented, 'hex');
  const b = Buffer.from(stored, 'hex');
  return a.length === b.length && a.length > 0 && timingSafeEqual(a, b);
}
