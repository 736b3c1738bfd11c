import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { z } from 'zod';
import { okWith } from '../../../lib/http/response-shapes.ts';

// POST /api/certs/mtls/rotate — a new admin certificate; {ok, serial, expiresAt, graceEndsAt, p12Password, warning}. The caller's certificate keeps working until the new one is used or the grace period ends.
export default route({
  method: 'POST',
  path: '/api/certs/mtls/rotate',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 410: 'The admin certificate is hardware-bound: PKCS#12 routes are disabled' },
  response: { schema: okWith({ serial: z.string(), expiresAt: z.string(), graceEndsAt: z.string(), p12Password: z.string(), warning: z.string() }) },
  async handle({ identity, services }) {
    const serial = identity.role === 'admin' ? identity.serial : null;
    const rotated = await services.adminCert.rotate(serial);
    return {
      ok: true,
      ...rotated,
      warning: 'Download and import the new certificate. Your current certificate stops working the first time the new one is used, or when the grace period ends.',
    };
  },
});
