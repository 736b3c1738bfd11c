import { ADMIN_OR_AGENT, RETRY_AFTER, route } from '../../lib/http/route.ts';
import { InviteAccept, InviteTokenParams } from '../../lib/invitations/schema.ts';
import { z } from 'zod';
import { okWith } from '../../lib/http/response-shapes.ts';

// POST /api/invite/:token/accept — public: sets the password, creates the portal user (404 unknown,
// 410 used or expired, like the lookup);
// 200 {ok, username, loginUrl, totpUri}.
export default route({
  method: 'POST',
  path: '/api/invite/:token/accept',
  access: { roles: ADMIN_OR_AGENT, gate: 'management', public: true },
  answers: {
    404: 'Invitation not found',
    409: 'User already exists',
    410: 'Invitation already used, or expired',
    429: `Rate limit exceeded (10 tries a minute per client address, both invite routes together); ${RETRY_AFTER}`,
  },
  response: { schema: okWith({ username: z.string(), loginUrl: z.string(), totpUri: z.string().nullable() }) },
  params: InviteTokenParams,
  body: InviteAccept,
  async handle({ params, body, services, clientAddress }) {
    services.invitations.takeTry(clientAddress());
    return { ok: true, ...(await services.invitations.accept(params.token, body.password)) };
  },
});
