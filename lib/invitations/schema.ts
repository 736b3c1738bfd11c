import { z } from 'zod';
import { InvitationRecord } from '../state/schemas.ts';
import { Displayname, Email, Groups, Password, Username } from '../users/schema.ts';

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

/** Any string: an id that matches no invitation answers 404 `Invitation not found`. */
export const InvitationIdParams = z.object({ id: z.string().max(256) });
export type InvitationIdParams = z.infer<typeof InvitationIdParams>;

/** Any string: a malformed token gets the same 404 as an unknown one. */
export const InviteTokenParams = z.object({ token: z.string().max(1024) });
export type InviteTokenParams = z.infer<typeof InviteTokenParams>;

export const InviteAccept = z.object({ password: Password });
export type InviteAccept = z.infer<typeof InviteAccept>;

/** An invitation as the list shows it: never the token's hash. */
export const PublicInvitationShape = InvitationRecord.omit({ tokenHash: true }).extend({ status: z.enum(['pending', 'accepted', 'expired']) });
