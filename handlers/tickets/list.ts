import { json } from '../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../lib/http/route.ts';

// GET /api/tickets — every stored ticket, used and expired included.
export default route({
  method: 'GET',
  path: '/api/tickets',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  handle: ({ services }) => json({ tickets: services.ticketing.tickets.list() }),
});
