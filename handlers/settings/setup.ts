import { json } from '../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { z } from 'zod';

// POST /api/settings/2fa/setup — a new secret, not yet enabled; {otpauthUri, secret} for the authenticator app.
export default route({
  method: 'POST',
  path: '/api/settings/2fa/setup',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  response: { schema: z.object({ otpauthUri: z.string(), secret: z.string() }) },
  async handle({ services }) {
    return json(await services.twoFactor.setup());
  },
});
