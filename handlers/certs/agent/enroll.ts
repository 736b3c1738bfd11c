import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { EnrollmentTokenCreate } from '../../../lib/certs/schema.ts';
import { z } from 'zod';
import { okWith } from '../../../lib/http/response-shapes.ts';

// POST /api/certs/agent/enroll — a one-time enrollment token for a label; 201 {ok: true, token, label, expiresAt};
// 409 while the label is held by an agent or by another unexpired token.
export default route({
  method: 'POST',
  path: '/api/certs/agent/enroll',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 400: 'Unknown capability or site', 409: "Agent certificate '<label>' already exists, or an unexpired enrollment token for it does" },
  response: { status: 201, schema: okWith({ token: z.string(), label: z.string(), expiresAt: z.string() }) },
  body: EnrollmentTokenCreate,
  async handle({ body, services }) {
    return { ok: true, ...(await services.enrollment.createToken(body)) };
  },
});
