import { ADMIN_OR_AGENT, route } from '../../../lib/http/route.ts';
import { z } from 'zod';
import { TicketRecord, TransportConfig } from '../../../lib/state/schemas.ts';

// GET /api/tickets/inbox — the caller's unexpired, unused tickets; polled often, served from memory.
export default route({
  method: 'GET',
  path: '/api/tickets/inbox',
  access: { roles: ADMIN_OR_AGENT, gate: 'management', needsLabel: true },
  response: { kind: 'bytes', schema: z.object({ tickets: z.array(TicketRecord.pick({ id: true, scope: true, instanceId: true, source: true, expiresAt: true }).extend({ transport: TransportConfig })) }) },
  handle: ({ identity, services }) => services.ticketing.tickets.inboxJson(identity),
});
