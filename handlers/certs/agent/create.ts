import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { AgentCreate } from '../../../lib/certs/schema.ts';
import { z } from 'zod';
import { okWith } from '../../../lib/http/response-shapes.ts';

// POST /api/certs/agent — issues CN=agent:<label>; 201 {ok, label, serial, expiresAt, p12Password} (the password only here, once).
export default route({
  method: 'POST',
  path: '/api/certs/agent',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 400: 'Unknown capability or site', 409: "Agent certificate '<label>' already exists" },
  response: { status: 201, schema: okWith({ label: z.string(), serial: z.string(), expiresAt: z.string(), p12Password: z.string() }) },
  body: AgentCreate,
  async handle({ body, services }) {
    return { ok: true, ...(await services.agentCerts.create(body)) };
  },
});
