import { json } from '../lib/http/responses.ts';
import { route } from '../lib/http/route.ts';
import { EnrollBody } from '../lib/certs/schema.ts';
import { z } from 'zod';
import { okWith } from '../lib/http/response-shapes.ts';

// POST /api/enroll — public: a one-time token and a CSR; 200 {ok: true, label, cert, caCert, serial, expiresAt} (PEM; Portlama's names).
// 401 `Invalid enrollment token` for an unknown, used or expired token.
export default route({
  method: 'POST',
  path: '/api/enroll',
  access: { roles: ['admin', 'agent'], public: true, gate: 'management' },
  response: { schema: okWith({ label: z.string(), cert: z.string(), caCert: z.string(), serial: z.string(), expiresAt: z.string() }) },
  body: EnrollBody,
  async handle({ body, services, clientAddress }) {
    return json({ ok: true, ...(await services.enrollment.enroll(body, clientAddress())) });
  },
});
