import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { z } from 'zod';
import { TicketRecord, TransportConfig } from '../../lib/state/schemas.ts';

// GET /api/tickets — every stored ticket, used and expired included, with its session and transport.
export default route({
  method: 'GET',
  path: '/api/tickets',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  response: { schema: z.object({ tickets: z.array(TicketRecord.extend({ sessionId: z.string().nullable(), transport: TransportConfig.nullable() })) }) },
  handle: ({ services }) => ({ tickets: services.ticketing.tickets.list() }),
});
