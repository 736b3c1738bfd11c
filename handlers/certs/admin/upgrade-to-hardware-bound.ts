import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { CsrBody } from '../../../lib/certs/schema.ts';
import { z } from 'zod';
import { okWith } from '../../../lib/http/response-shapes.ts';

// POST /api/certs/admin/upgrade-to-hardware-bound — {csr}: signed as CN=admin, every P12 admin certificate revoked;
// {ok, adminAuthMode, cert, caCert, serial, expiresAt} (Portlama's names).
export default route({
  method: 'POST',
  path: '/api/certs/admin/upgrade-to-hardware-bound',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 400: 'Invalid certificate signing request', 409: 'The admin certificate is already hardware-bound' },
  response: { schema: okWith({ adminAuthMode: z.literal('hardware-bound'), cert: z.string(), caCert: z.string(), serial: z.string(), expiresAt: z.string() }) },
  body: CsrBody,
  async handle({ body, identity, services }) {
    const serial = identity.role === 'admin' ? identity.serial : null;
    const signed = await services.adminCert.upgradeToHardwareBound(body.csr, serial);
    return { ok: true, adminAuthMode: 'hardware-bound', ...signed };
  },
});
