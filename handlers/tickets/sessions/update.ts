import { ADMIN_OR_AGENT, route } from '../../../lib/http/route.ts';
import { SessionIdParams, SessionUpdate } from '../../../lib/tickets/schema.ts';
import { Ok } from '../../../lib/http/response-shapes.ts';

// PATCH /api/tickets/sessions/:sessionId — status only; the server stamps lastActivityAt.
export default route({
  method: 'PATCH',
  path: '/api/tickets/sessions/:sessionId',
  access: { roles: ADMIN_OR_AGENT, gate: 'management', needsLabel: true },
  answers: { 404: 'Session not found', 409: 'Session terminated, or Session authorization failed' },
  response: { schema: Ok },
  params: SessionIdParams,
  body: SessionUpdate,
  async handle({ params, body, identity, services }) {
    await services.ticketing.sessions.setStatus(identity, params.sessionId, body.status);
    return { ok: true };
  },
});
