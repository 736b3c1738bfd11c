import { randomBytes } from 'node:crypto';

/** The form every token has: 32 bytes as lowercase hex. */
export const INVITE_TOKEN = /^[0-9a-f]{64}$/;

/** 32 random bytes as 64 hex characters: the secret part of an invitation link. */
export const newInviteToken = (): string => randomBytes(32).toString('hex');
