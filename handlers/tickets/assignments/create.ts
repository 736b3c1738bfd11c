import type { AdminIdentity } from '../../../lib/auth/identity.ts';
import { json } from '../../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { AssignmentCreate } from '../../../lib/tickets/schema.ts';

// POST /api/tickets/assignments — 201 for a new assignment, 200 when it already exists.
export default route({
  method: 'POST',
  path: '/api/tickets/assignments',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  body: AssignmentCreate,
  async handle({ body, identity, services }) {
    // ADMIN_ONLY: the chain lets only admin certificates this far. `assignedBy` is the common name.
    const { commonName } = identity as AdminIdentity;
    const { created, assignment } = await services.ticketing.assignments.create(body, commonName);
    return json({ ok: true, assignment }, created ? 201 : 200);
  },
});
