import { randomBytes } from 'node:crypto';

/** 32 random bytes as 64 hex characters: the secret part of an invitation link. */
export const newInviteToken = (): string => randomBytes(32).toString('hex');
