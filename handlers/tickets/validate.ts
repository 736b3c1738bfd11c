import { ADMIN_OR_AGENT, route } from '../../lib/http/route.ts';
import { TicketIdBody } from '../../lib/tickets/schema.ts';
import { z } from 'zod';
import { TransportConfig } from '../../lib/state/schemas.ts';

// POST /api/tickets/validate — consumes the ticket; every failure is the same 401.
export default route({
  method: 'POST',
  path: '/api/tickets/validate',
  access: { roles: ADMIN_OR_AGENT, gate: 'management', needsLabel: true },
  answers: { 401: 'Invalid ticket (expired, used, wrong target or unknown)' },
  response: { schema: z.object({ valid: z.literal(true), scope: z.string(), instanceId: z.string(), source: z.string(), target: z.string(), transport: TransportConfig }) },
  body: TicketIdBody,
  async handle({ body, identity, services }) {
    return await services.ticketing.tickets.validate(identity, body.ticketId);
  },
});
