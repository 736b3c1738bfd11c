import { TotpCodeBody } from '../../lib/auth/two-factor.ts';
import { twoFactorCookieHeader } from '../../lib/auth/two-factor-session.ts';
import { json } from '../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { z } from 'zod';
import { okWith } from '../../lib/http/response-shapes.ts';

// POST /api/settings/2fa/disable — a good code disables 2FA (IP panel vhost back on); {ok: true, enabled: false}, cookie cleared.
export default route({
  method: 'POST',
  path: '/api/settings/2fa/disable',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  response: { schema: okWith({ enabled: z.literal(false) }) },
  body: TotpCodeBody,
  async handle({ body, services, clientAddress }) {
    await services.twoFactor.disable(body.code, clientAddress());
    return json({ ok: true, enabled: false }, 200, { 'set-cookie': twoFactorCookieHeader('', 0) });
  },
});
