import { jsonText } from '../../lib/http/responses.ts';
import { ADMIN_OR_AGENT, route } from '../../lib/http/route.ts';

// GET /api/tickets/inbox — the caller's unexpired, unused tickets; polled often, served from memory.
export default route({
  method: 'GET',
  path: '/api/tickets/inbox',
  access: { roles: ADMIN_OR_AGENT, gate: 'management', needsLabel: true },
  handle: ({ identity, services }) => jsonText(services.ticketing.tickets.inboxJson(identity.label)),
});
