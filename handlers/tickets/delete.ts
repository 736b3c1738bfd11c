import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { TicketIdParams } from '../../lib/tickets/schema.ts';
import { Ok } from '../../lib/http/response-shapes.ts';

// DELETE /api/tickets/:ticketId — marks the ticket used and ends its session.
export default route({
  method: 'DELETE',
  path: '/api/tickets/:ticketId',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 404: 'Ticket not found' },
  response: { schema: Ok },
  params: TicketIdParams,
  async handle({ params, services }) {
    await services.ticketing.tickets.revoke(params.ticketId);
    return { ok: true };
  },
});
