import { RETRY_AFTER, route } from '../../lib/http/route.ts';
import { EnrollBody } from '../../lib/certs/schema.ts';
import { z } from 'zod';
import { okWith } from '../../lib/http/response-shapes.ts';

// POST /api/enroll — public: a one-time token and a CSR; 200 {ok: true, label, cert, caCert, serial, expiresAt} (PEM; Portlama's names).
// 401 `Invalid enrollment token` for an unknown, used or expired token.
export default route({
  method: 'POST',
  path: '/api/enroll',
  access: { roles: ['admin', 'agent'], public: true, gate: 'management' },
  answers: {
    400: 'Invalid certificate signing request',
    401: 'Invalid enrollment token',
    409: "Agent certificate '<label>' already exists",
    429: `Too many enrollment attempts. Try again later. (10 a minute per client address); ${RETRY_AFTER}`,
  },
  response: { schema: okWith({ label: z.string(), cert: z.string(), caCert: z.string(), serial: z.string(), expiresAt: z.string() }) },
  body: EnrollBody,
  async handle({ body, services, clientAddress }) {
    return { ok: true, ...(await services.enrollment.enroll(body, clientAddress())) };
  },
});
