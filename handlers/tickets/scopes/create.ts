import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { ScopeRegistration } from '../../../lib/tickets/schema.ts';
import { z } from 'zod';
import { okWith } from '../../../lib/http/response-shapes.ts';

// POST /api/tickets/scopes — adds the declared capabilities to the valid capability set.
export default route({
  method: 'POST',
  path: '/api/tickets/scopes',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 409: 'Scope already registered, or one of its capabilities is' },
  response: { status: 201, schema: okWith({ registered: z.array(z.string()) }) },
  body: ScopeRegistration,
  async handle({ body, services }) {
    const registered = await services.ticketing.scopes.register(body);
    return { ok: true, registered };
  },
});
