import { json } from '../../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { PushConfigUpdate } from '../../../lib/plugins/push-schema.ts';

// PATCH /api/plugins/push-install/config — {enabled?, defaultPolicyId?}; 200 {ok, config}.
export default route<Record<string, never>, Record<string, never>, PushConfigUpdate>({
  method: 'PATCH',
  path: '/api/plugins/push-install/config',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  body: PushConfigUpdate,
  async handle({ body, services }) {
    return json({ ok: true, config: await services.pushInstall.updateConfig(body) });
  },
});
