import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { z } from 'zod';
import { PublicInvitationShape } from '../../lib/invitations/schema.ts';

// GET /api/invitations — newest first, each with its status (pending, accepted, expired); never a token.
export default route({
  method: 'GET',
  path: '/api/invitations',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  response: { kind: 'bytes', schema: z.object({ invitations: z.array(PublicInvitationShape) }) },
  handle: ({ services }) => services.invitations.listJson(),
});
