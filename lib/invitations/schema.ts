import { z } from 'zod';
import { InvitationRecord } from '../state/schemas.ts';
import { Displayname, Email, Groups, Password, Username } from '../users/schema.ts';
import { UuidParam } from '../uuid-param.ts';
import { INVITE_TOKEN } from './token.ts';

// API inputs of the invitation routes (shapes after Portlama's; see docs/decisions.md > Invitations).

export const DEFAULT_EXPIRY_DAYS = 7;

export const InvitationCreate = z.object({
  username: Username,
  email: Email,
  /** the portal's display name; the username when omitted */
  displayname: Displayname.optional(),
  groups: Groups.default([]),
  expiresInDays: z.number().int('expiresInDays must be an integer').min(1).max(30).default(DEFAULT_EXPIRY_DAYS),
});
export type InvitationCreate = z.infer<typeof InvitationCreate>;

/** A UUID in any version (Portlama's rule): not one is 400, one that matches nothing 404. */
export const InvitationIdParams = z.object({ id: UuidParam });
export type InvitationIdParams = z.infer<typeof InvitationIdParams>;

/**
 * The token's own form, 64 lowercase hex (what `newInviteToken` makes; Portlama's check): anything
 * else is 400 `Validation failed` before a lookup, the spec's order for malformed parameters.
 */
const TOKEN_FORM = 'must be 64 lowercase hex characters';
export const InviteTokenParams = z.object({ token: z.string().max(64, { message: TOKEN_FORM, abort: true }).regex(INVITE_TOKEN, TOKEN_FORM) });
export type InviteTokenParams = z.infer<typeof InviteTokenParams>;

export const InviteAccept = z.object({ password: Password });
export type InviteAccept = z.infer<typeof InviteAccept>;

/** An invitation as the list shows it: never the token's hash. */
export const PublicInvitationShape = InvitationRecord.omit({ tokenHash: true }).extend({ status: z.enum(['pending', 'accepted', 'expired']) });
