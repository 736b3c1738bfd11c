import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { reply } from '../../../lib/http/reply.ts';
import { AssignmentCreate } from '../../../lib/tickets/schema.ts';
import { TicketAssignmentRecord } from '../../../lib/state/schemas.ts';
import { okWith } from '../../../lib/http/response-shapes.ts';

// POST /api/tickets/assignments — 201 for a new assignment, 200 when it already exists.
export default route({
  method: 'POST',
  path: '/api/tickets/assignments',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 200: 'The assignment already exists', 400: 'Agent missing capability', 404: 'Agent not found, or Instance not found' },
  response: { status: 201, schema: okWith({ assignment: TicketAssignmentRecord }) },
  body: AssignmentCreate,
  async handle({ body, identity, services }) {
    // `assignedBy` is the admin certificate's common name
    const { created, assignment } = await services.ticketing.assignments.create(body, identity.commonName);
    return reply({ ok: true, assignment }, { status: created ? 201 : 200 });
  },
});
