import { ADMIN_OR_AGENT, route } from '../../../lib/http/route.ts';
import { SessionIdParams } from '../../../lib/tickets/schema.ts';
import { z } from 'zod';
import { SessionEndReason } from '../../../lib/state/schemas.ts';

// POST /api/tickets/sessions/:sessionId/heartbeat — re-authorizes; a failed check ends the session.
export default route({
  method: 'POST',
  path: '/api/tickets/sessions/:sessionId/heartbeat',
  access: { roles: ADMIN_OR_AGENT, gate: 'management', needsLabel: true },
  answers: { 404: 'Session not found' },
  response: { schema: z.union([z.object({ authorized: z.literal(true) }), z.object({ authorized: z.literal(false), reason: SessionEndReason })]) },
  params: SessionIdParams,
  async handle({ params, identity, services }) {
    return await services.ticketing.sessions.heartbeat(identity, params.sessionId);
  },
});
