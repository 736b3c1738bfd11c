import { TotpCodeBody } from '../../../lib/auth/two-factor.ts';
import { twoFactorCookieHeader } from '../../../lib/auth/two-factor-session.ts';
import { ADMIN_ONLY, RETRY_AFTER, route } from '../../../lib/http/route.ts';
import { reply } from '../../../lib/http/reply.ts';
import { z } from 'zod';
import { okWith } from '../../../lib/http/response-shapes.ts';

// POST /api/settings/2fa/confirm — a first good code enables 2FA (IP panel vhost off); {ok: true, enabled: true} plus the session cookie.
export default route({
  method: 'POST',
  path: '/api/settings/2fa/confirm',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: {
    400: 'No 2FA setup in progress',
    401: 'Invalid TOTP code',
    409: '2FA is already enabled',
    429: `Too many attempts. Try again later. (5 tries a minute per client address, 20 in all); ${RETRY_AFTER}`,
  },
  response: { schema: okWith({ enabled: z.literal(true) }) },
  body: TotpCodeBody,
  async handle({ body, services, clientAddress }) {
    const session = await services.twoFactor.confirm(body.code, clientAddress());
    return reply({ ok: true, enabled: true }, { headers: { 'set-cookie': twoFactorCookieHeader(session.value, session.maxAgeMs) } });
  },
});
