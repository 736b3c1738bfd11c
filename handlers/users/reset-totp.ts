import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { UsernameParams } from '../../lib/users/schema.ts';
import { z } from 'zod';
import { okWith } from '../../lib/http/response-shapes.ts';

// POST /api/users/:username/reset-totp — a new secret, written to the portal without a restart; 200 {ok, totpUri}.
export default route({
  method: 'POST',
  path: '/api/users/:username/reset-totp',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 404: 'User not found' },
  response: { schema: okWith({ totpUri: z.string() }) },
  params: UsernameParams,
  async handle({ params, services }) {
    return { ok: true, totpUri: await services.users.resetTotp(params.username) };
  },
});
