import { TotpCodeBody } from '../../../lib/auth/two-factor.ts';
import { twoFactorCookieHeader } from '../../../lib/auth/two-factor-session.ts';
import { ADMIN_ONLY, RETRY_AFTER, route } from '../../../lib/http/route.ts';
import { reply } from '../../../lib/http/reply.ts';
import { z } from 'zod';
import { okWith } from '../../../lib/http/response-shapes.ts';

// POST /api/settings/2fa/verify — a good code sets the signed session cookie; {ok: true, verified: true}. 5 tries a minute per address.
export default route({
  method: 'POST',
  path: '/api/settings/2fa/verify',
  access: { roles: ADMIN_ONLY, gate: 'management', twoFactorExempt: true },
  answers: {
    400: '2FA is not enabled',
    401: 'Invalid TOTP code',
    429: `Too many attempts. Try again later. (5 tries a minute per client address, 20 in all); ${RETRY_AFTER}`,
  },
  response: { schema: okWith({ verified: z.literal(true) }) },
  body: TotpCodeBody,
  handle({ body, services, clientAddress }) {
    const session = services.twoFactor.verify(body.code, clientAddress());
    return reply({ ok: true, verified: true }, { headers: { 'set-cookie': twoFactorCookieHeader(session.value, session.maxAgeMs) } });
  },
});
