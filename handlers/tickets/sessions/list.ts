import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { z } from 'zod';
import { TicketSessionRecord } from '../../../lib/state/schemas.ts';

// GET /api/tickets/sessions — dead sessions included until the cleanup removes them.
export default route({
  method: 'GET',
  path: '/api/tickets/sessions',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  response: { schema: z.object({ sessions: z.array(TicketSessionRecord) }) },
  handle: ({ services }) => ({ sessions: services.ticketing.sessions.list() }),
});
