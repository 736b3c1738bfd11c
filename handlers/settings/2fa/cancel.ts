import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { z } from 'zod';
import { okWith } from '../../../lib/http/response-shapes.ts';

// POST /api/settings/2fa/cancel — ends an unconfirmed setup and drops its secret (2FA stays off); {ok: true, enabled: false}.
export default route({
  method: 'POST',
  path: '/api/settings/2fa/cancel',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 409: '2FA is already enabled' },
  response: { schema: okWith({ enabled: z.literal(false) }) },
  async handle({ services }) {
    await services.twoFactor.cancel();
    return { ok: true, enabled: false };
  },
});
