import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { SessionIdParams } from '../../../lib/tickets/schema.ts';
import { Ok } from '../../../lib/http/response-shapes.ts';

// DELETE /api/tickets/sessions/:sessionId — ends it with reason admin_killed.
export default route({
  method: 'DELETE',
  path: '/api/tickets/sessions/:sessionId',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 404: 'Session not found' },
  response: { schema: Ok },
  params: SessionIdParams,
  async handle({ params, services }) {
    await services.ticketing.sessions.kill(params.sessionId);
    return { ok: true };
  },
});
