import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { InvitationCreate } from '../../lib/invitations/schema.ts';
import { z } from 'zod';
import { PublicInvitationShape } from '../../lib/invitations/schema.ts';
import { okWith } from '../../lib/http/response-shapes.ts';

// POST /api/invitations — 201 {ok, invitation, inviteUrl, token}; the token is shown only here.
export default route({
  method: 'POST',
  path: '/api/invitations',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 409: 'The user already exists, or a pending invitation for the username does' },
  response: { status: 201, schema: okWith({ invitation: PublicInvitationShape, inviteUrl: z.string(), token: z.string() }) },
  body: InvitationCreate,
  async handle({ body, services }) {
    return { ok: true, ...(await services.invitations.create(body)) };
  },
});
