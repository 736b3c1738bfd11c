import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { z } from 'zod';
import { TicketAssignmentRecord, TicketInstanceRecord, TicketScopeRecord } from '../../../lib/state/schemas.ts';

// GET /api/tickets/scopes — scopes with every instance and assignment, for the admin overview.
export default route({
  method: 'GET',
  path: '/api/tickets/scopes',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  response: { schema: z.object({ scopes: z.array(TicketScopeRecord), instances: z.array(TicketInstanceRecord), assignments: z.array(TicketAssignmentRecord) }) },
  handle: ({ services }) => services.ticketing.scopes.list(),
});
