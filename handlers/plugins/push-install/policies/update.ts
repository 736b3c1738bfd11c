import { ADMIN_ONLY, route } from '../../../../lib/http/route.ts';
import { PushPolicyParams, PushPolicyUpdate } from '../../../../lib/plugins/push-schema.ts';
import { okWith } from '../../../../lib/http/response-shapes.ts';
import { PushPolicyRecord } from '../../../../lib/state/schemas.ts';

const ANSWER = { schema: okWith({ policy: PushPolicyRecord }) };

// PATCH /api/plugins/push-install/policies/:id — the fields named are replaced (the `default` policy too); 200 {ok, policy}.
export default route({
  method: 'PATCH',
  path: '/api/plugins/push-install/policies/:id',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 404: 'Policy \"<id>\" not found' },
  response: ANSWER,
  params: PushPolicyParams,
  body: PushPolicyUpdate,
  async handle({ params, body, services }) {
    return { ok: true, policy: await services.pushInstall.policies.update(params.id, body) };
  },
});
