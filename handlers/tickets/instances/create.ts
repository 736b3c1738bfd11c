import { ADMIN_OR_AGENT, route } from '../../../lib/http/route.ts';
import { reply } from '../../../lib/http/reply.ts';
import { InstanceRegistration } from '../../../lib/tickets/schema.ts';
import { z } from 'zod';
import { okWith } from '../../../lib/http/response-shapes.ts';

// POST /api/tickets/instances — 201 for a new scope and agent pair, 200 when re-registering it.
export default route({
  method: 'POST',
  path: '/api/tickets/instances',
  access: { roles: ADMIN_OR_AGENT, gate: 'management', needsLabel: true },
  answers: {
    200: 'Re-registered: the scope and agent pair existed',
    400: 'Private or reserved address in transport.direct.host',
    403: 'Insufficient certificate capability',
    404: 'Scope not found',
    503: 'Instance limit reached',
  },
  response: { status: 201, schema: okWith({ instanceId: z.string(), instanceScope: z.string() }) },
  body: InstanceRegistration,
  async handle({ body, identity, services }) {
    const { created, instanceId, instanceScope } = await services.ticketing.instances.register(identity, body);
    return reply({ ok: true, instanceId, instanceScope }, { status: created ? 201 : 200 });
  },
});
