import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { AssignmentFilter } from '../../../lib/tickets/schema.ts';
import { z } from 'zod';
import { TicketAssignmentRecord } from '../../../lib/state/schemas.ts';

// GET /api/tickets/assignments?agentLabel=&instanceScope=
export default route({
  method: 'GET',
  path: '/api/tickets/assignments',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  response: { schema: z.object({ assignments: z.array(TicketAssignmentRecord) }) },
  query: AssignmentFilter,
  handle: ({ query, services }) => ({ assignments: services.ticketing.assignments.list(query) }),
});
