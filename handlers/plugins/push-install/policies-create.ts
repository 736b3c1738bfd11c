import { json } from '../../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { PushPolicyCreate } from '../../../lib/plugins/push-schema.ts';

// POST /api/plugins/push-install/policies — {name, description?, allowedPlugins, allowedActions?}; 201 {ok, policy}.
export default route<Record<string, never>, Record<string, never>, PushPolicyCreate>({
  method: 'POST',
  path: '/api/plugins/push-install/policies',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  body: PushPolicyCreate,
  async handle({ body, services }) {
    return json({ ok: true, policy: await services.pushInstall.createPolicy(body) }, 201);
  },
});
