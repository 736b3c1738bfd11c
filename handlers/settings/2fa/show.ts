import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { z } from 'zod';

// GET /api/settings/2fa — {enabled, setupComplete}; exempt from the 2FA session (the client needs it to know it must verify).
export default route({
  method: 'GET',
  path: '/api/settings/2fa',
  access: { roles: ADMIN_ONLY, gate: 'management', twoFactorExempt: true },
  response: { schema: z.object({ enabled: z.boolean(), setupComplete: z.boolean() }) },
  handle: ({ services }) => services.twoFactor.status(),
});
