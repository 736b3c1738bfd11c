import { TotpCodeBody } from '../../../lib/auth/two-factor.ts';
import { twoFactorCookieHeader } from '../../../lib/auth/two-factor-session.ts';
import { ADMIN_ONLY, RETRY_AFTER, route } from '../../../lib/http/route.ts';
import { reply } from '../../../lib/http/reply.ts';
import { z } from 'zod';
import { okWith } from '../../../lib/http/response-shapes.ts';

// POST /api/settings/2fa/disable — a good code disables 2FA (IP panel vhost back on); {ok: true, enabled: false}, cookie cleared.
export default route({
  method: 'POST',
  path: '/api/settings/2fa/disable',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: {
    400: '2FA is not enabled',
    401: 'Invalid TOTP code',
    429: `Too many attempts. Try again later. (5 tries a minute per client address, 20 in all); ${RETRY_AFTER}`,
  },
  response: { schema: okWith({ enabled: z.literal(false) }) },
  body: TotpCodeBody,
  async handle({ body, services, clientAddress }) {
    await services.twoFactor.disable(body.code, clientAddress());
    return reply({ ok: true, enabled: false }, { headers: { 'set-cookie': twoFactorCookieHeader('', 0) } });
  },
});
