import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** The form every token has: 32 bytes as lowercase hex. */
export const INVITE_TOKEN = /^[0-9a-f]{64}$/;

/** 32 random bytes as 64 hex characters: the secret part of an invitation link. */
export const newInviteToken = (): string => randomBytes(32).toString('hex');

/** What is stored instead of the token. */
export const inviteTokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

/** Constant-time comparison of a presented token's hash with a stored one. */
export function sameTokenHash(presented: string, stored: string): boolean {
  const a = Buffer.from(presented, 'hex');
  const b = Buffer.from(stored, 'hex');
  return a.length === b.length && a.length > 0 && timingSafeEqual(a, b);
}
