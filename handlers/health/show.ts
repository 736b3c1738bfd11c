import { jsonBytes } from '../../lib/http/responses.ts';
import { route } from '../../lib/http/route.ts';
import { z } from 'zod';

const HEALTHY = jsonBytes({ status: 'ok' });

// GET /api/health — always reachable: no certificate, 2FA or onboarding check.
export default route({
  method: 'GET',
  path: '/api/health',
  access: { roles: ['admin', 'agent'], gate: 'open', public: true, twoFactorExempt: true },
  response: { kind: 'bytes', schema: z.object({ status: z.literal('ok') }) },
  handle: () => HEALTHY,
});
