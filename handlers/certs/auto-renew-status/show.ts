import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { z } from 'zod';

// GET /api/certs/auto-renew-status — the certbot timer: {active, nextRun, lastRun}.
export default route({
  method: 'GET',
  path: '/api/certs/auto-renew-status',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  response: { schema: z.object({ active: z.boolean(), nextRun: z.string().nullable(), lastRun: z.string().nullable() }) },
  async handle({ services }) {
    return await services.letsEncrypt.autoRenewStatus();
  },
});
