import { createHash, timingSafeEqual } from 'node:crypto';

// One-time tokens (invitations, enrollment) are shown once and stored only as a hash, so a copy
// of the data directory grants nothing.

/** What is stored instead of the token: sha-256, hex. */
export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * The record whose stored hash matches the presented token, compared in constant time against every
 * record (no early exit): the time taken says nothing about which stored token is nearest.
 */
export function findByToken<T extends { tokenHash: string }>(records: readonly T[], token: string): T | undefined {
  const presented = hashToken(token);
  let found: T | undefined;
  for (const record of records) if (sameTokenHash(presented, record.tokenHash)) found = record;
  return found;
}

/** Constant-time comparison of a presented token's hash (always 32 bytes) with a stored one. */
function sameTokenHash(presented: string, stored: string): boolean {
  const a = Buffer.from(presented, 'hex');
  const b = Buffer.from(stored, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
