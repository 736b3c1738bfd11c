import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { ScopeNameParams } from '../../../lib/tickets/schema.ts';
import { z } from 'zod';
import { okWith } from '../../../lib/http/response-shapes.ts';

// DELETE /api/tickets/scopes/:name — removes its capabilities from the valid set, and its instances.
export default route({
  method: 'DELETE',
  path: '/api/tickets/scopes/:name',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 404: 'Scope not found' },
  response: { schema: okWith({ name: z.string() }) },
  params: ScopeNameParams,
  async handle({ params, services }) {
    await services.ticketing.scopes.remove(params.name);
    return { ok: true, name: params.name };
  },
});
