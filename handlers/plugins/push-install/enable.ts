import { json } from '../../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { AgentLabelParams } from '../../../lib/certs/schema.ts';
import { PushEnable } from '../../../lib/plugins/push-schema.ts';

// POST /api/plugins/push-install/enable/:label — {durationMinutes?, policyId?}; 200 {ok, label, policyId, enabledAt, expiresAt}.
export default route<AgentLabelParams, Record<string, never>, PushEnable>({
  method: 'POST',
  path: '/api/plugins/push-install/enable/:label',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  params: AgentLabelParams,
  body: PushEnable,
  async handle({ params, body, services }) {
    return json({ ok: true, ...(await services.pushInstall.enable(params.label, body)) });
  },
});
