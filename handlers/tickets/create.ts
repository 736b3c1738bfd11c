import { ADMIN_OR_AGENT, route } from '../../lib/http/route.ts';
import { TicketRequest } from '../../lib/tickets/schema.ts';
import { TicketRecord } from '../../lib/state/schemas.ts';
import { okWith } from '../../lib/http/response-shapes.ts';

// POST /api/tickets — the capability check depends on the body's scope, so it runs in the service
// and fails with the generic 404 like the other authorization checks.
export default route({
  method: 'POST',
  path: '/api/tickets',
  access: { roles: ADMIN_OR_AGENT, gate: 'management' },
  answers: {
    404: 'Not found (every authorization failure, generic)',
    429: "Rate limit exceeded (10 per agent per minute; the spec's body, exactly {error})",
    503: 'Instance is stale, or Ticket limit reached',
  },
  response: { status: 201, schema: okWith({ ticket: TicketRecord.pick({ id: true, scope: true, instanceId: true, source: true, target: true, expiresAt: true }) }) },
  body: TicketRequest,
  async handle({ body, identity, services }) {
    return { ok: true, ticket: await services.ticketing.tickets.request(identity, body) };
  },
});
