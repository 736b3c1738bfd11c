import { json } from '../../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { certificateName } from '../../../lib/tickets/caller.ts';
import { AssignmentCreate } from '../../../lib/tickets/schema.ts';

// POST /api/tickets/assignments — 201 for a new assignment, 200 when it already exists.
export default route({
  method: 'POST',
  path: '/api/tickets/assignments',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  body: AssignmentCreate,
  async handle({ body, identity, services }) {
    const { created, assignment } = await services.tickets.assignments.create(body, certificateName(identity));
    return json({ ok: true, assignment }, created ? 201 : 200);
  },
});
