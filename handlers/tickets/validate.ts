import { json } from '../../lib/http/responses.ts';
import { ADMIN_OR_AGENT, route } from '../../lib/http/route.ts';
import { TicketIdBody } from '../../lib/tickets/schema.ts';

// POST /api/tickets/validate — consumes the ticket; every failure is the same 401.
export default route({
  method: 'POST',
  path: '/api/tickets/validate',
  access: { roles: ADMIN_OR_AGENT, gate: 'management', needsLabel: true },
  body: TicketIdBody,
  async handle({ body, identity, services }) {
    return json(await services.ticketing.tickets.validate(identity.label, body.ticketId));
  },
});
