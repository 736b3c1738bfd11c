import { ADMIN_ONLY, route } from '../../../../lib/http/route.ts';
import { z } from 'zod';

// GET /api/certs/admin/auth-mode — {adminAuthMode: 'p12' | 'hardware-bound'}.
export default route({
  method: 'GET',
  path: '/api/certs/admin/auth-mode',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  response: { schema: z.object({ adminAuthMode: z.enum(['p12', 'hardware-bound']) }) },
  async handle({ services }) {
    return await services.adminCert.authMode();
  },
});
