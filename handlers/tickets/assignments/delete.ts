import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { AssignmentParams } from '../../../lib/tickets/schema.ts';
import { Ok } from '../../../lib/http/response-shapes.ts';

// DELETE /api/tickets/assignments/:agentLabel/:instanceScope — live sessions end at their next heartbeat.
export default route({
  method: 'DELETE',
  path: '/api/tickets/assignments/:agentLabel/:instanceScope',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 404: 'Assignment not found' },
  response: { schema: Ok },
  params: AssignmentParams,
  async handle({ params, services }) {
    await services.ticketing.assignments.remove(params.agentLabel, params.instanceScope);
    return { ok: true };
  },
});
