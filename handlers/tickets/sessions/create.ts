import { ADMIN_OR_AGENT, route } from '../../../lib/http/route.ts';
import { TicketIdBody } from '../../../lib/tickets/schema.ts';
import { TicketSessionRecord } from '../../../lib/state/schemas.ts';
import { okWith } from '../../../lib/http/response-shapes.ts';

// POST /api/tickets/sessions — by the target of a validated ticket; one session per ticket.
export default route({
  method: 'POST',
  path: '/api/tickets/sessions',
  access: { roles: ADMIN_OR_AGENT, gate: 'management', needsLabel: true },
  answers: { 400: 'Invalid ticket state', 409: 'Session already exists for this ticket', 503: 'Session limit reached' },
  response: { status: 201, schema: okWith({ session: TicketSessionRecord }) },
  body: TicketIdBody,
  async handle({ body, identity, services }) {
    const session = await services.ticketing.sessions.create(identity, body.ticketId);
    return { ok: true, session };
  },
});
