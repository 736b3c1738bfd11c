import { ADMIN_ONLY, route } from '../../../../lib/http/route.ts';
import { PushPolicyParams } from '../../../../lib/plugins/push-schema.ts';
import { okWith } from '../../../../lib/http/response-shapes.ts';
import { z } from 'zod';

const ANSWER = { schema: okWith({ id: z.string() }) };

// DELETE /api/plugins/push-install/policies/:id — 400 for `default`, 409 while an unexpired enablement uses it; a deleted
// configured default makes `default` the default again; 200 Portlama's {ok, id}.
export default route({
  method: 'DELETE',
  path: '/api/plugins/push-install/policies/:id',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 400: 'Cannot delete the default policy', 404: 'Policy \"<id>\" not found', 409: 'Policy \"<id>\" is in use' },
  response: ANSWER,
  params: PushPolicyParams,
  async handle({ params, services }) {
    await services.pushInstall.deletePolicy(params.id);
    return { ok: true, id: params.id };
  },
});
