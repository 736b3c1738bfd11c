import { ADMIN_OR_AGENT, RETRY_AFTER, route } from '../../lib/http/route.ts';
import { InviteTokenParams } from '../../lib/invitations/schema.ts';
import { z } from 'zod';

// GET /api/invite/:token — public: {username, email, expiresAt}; 404 unknown, 410 used or expired.
export default route({
  method: 'GET',
  path: '/api/invite/:token',
  access: { roles: ADMIN_OR_AGENT, gate: 'management', public: true },
  answers: {
    404: 'Invitation not found',
    410: 'Invitation already used, or expired',
    429: `Rate limit exceeded (10 tries a minute per client address, both invite routes together); ${RETRY_AFTER}`,
  },
  response: { schema: z.object({ username: z.string(), email: z.string(), expiresAt: z.string() }) },
  params: InviteTokenParams,
  handle({ params, services, clientAddress }) {
    services.invitations.takeTry(clientAddress());
    return services.invitations.show(params.token);
  },
});
