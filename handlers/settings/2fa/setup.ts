import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { z } from 'zod';
import { okWith } from '../../../lib/http/response-shapes.ts';

// POST /api/settings/2fa/setup — a new secret, not yet enabled; {ok: true, uri, manualKey} (Portlama's names) for the authenticator app.
export default route({
  method: 'POST',
  path: '/api/settings/2fa/setup',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 400: 'Domain must be configured before enabling 2FA', 409: '2FA is already enabled' },
  response: { schema: okWith({ uri: z.string(), manualKey: z.string() }) },
  async handle({ services }) {
    return { ok: true, ...(await services.twoFactor.setup()) };
  },
});
