import { ADMIN_ONLY, route } from '../../../../lib/http/route.ts';
import { PushPolicyCreate } from '../../../../lib/plugins/push-schema.ts';
import { okWith } from '../../../../lib/http/response-shapes.ts';
import { PushPolicyRecord } from '../../../../lib/state/schemas.ts';

const ANSWER = { status: 201, schema: okWith({ policy: PushPolicyRecord }) };

// POST /api/plugins/push-install/policies — {name, id?, description?, allowedPlugins?, allowedActions?}; the id is the slug of
// the name unless given, 409 when taken; 201 {ok, policy}.
export default route({
  method: 'POST',
  path: '/api/plugins/push-install/policies',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 400: 'Policy name cannot be empty', 409: 'Policy \"<id>\" already exists' },
  response: ANSWER,
  body: PushPolicyCreate,
  async handle({ body, services }) {
    return { ok: true, policy: await services.pushInstall.policies.create(body) };
  },
});
