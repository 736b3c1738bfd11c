import { documented } from '../../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { PushPolicyParams } from '../../../lib/plugins/push-schema.ts';
import { Ok } from '../../../lib/http/response-shapes.ts';

const ANSWER = { schema: Ok };

// DELETE /api/plugins/push-install/policies/:id — 409 while the default or used by an unexpired enablement; 200 {ok}.
export default route({
  method: 'DELETE',
  path: '/api/plugins/push-install/policies/:id',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  response: ANSWER,
  params: PushPolicyParams,
  async handle({ params, services }) {
    await services.pushInstall.deletePolicy(params.id);
    return documented(ANSWER, { ok: true });
  },
});
