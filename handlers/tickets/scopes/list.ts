import { json } from '../../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';

// GET /api/tickets/scopes — scopes with every instance and assignment, for the admin overview.
export default route({
  method: 'GET',
  path: '/api/tickets/scopes',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  handle: ({ services }) => json(services.ticketing.scopes.list()),
});
