import { ADMIN_OR_AGENT, route } from '../../../lib/http/route.ts';
import { InstanceIdParams } from '../../../lib/tickets/schema.ts';
import { z } from 'zod';
import { okWith } from '../../../lib/http/response-shapes.ts';

// DELETE /api/tickets/instances/:instanceId — admin or owner; removes its assignments, tickets, sessions.
export default route({
  method: 'DELETE',
  path: '/api/tickets/instances/:instanceId',
  access: { roles: ADMIN_OR_AGENT, gate: 'management' },
  answers: { 404: 'Instance not found' },
  response: { schema: okWith({ instanceId: z.string() }) },
  params: InstanceIdParams,
  async handle({ params, identity, services }) {
    await services.ticketing.instances.remove(identity, params.instanceId);
    return { ok: true, instanceId: params.instanceId };
  },
});
