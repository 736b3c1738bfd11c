import { documented } from '../../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { AgentLabelParams } from '../../../lib/certs/schema.ts';
import { PushEnable } from '../../../lib/plugins/push-schema.ts';
import { okWith } from '../../../lib/http/response-shapes.ts';
import { PushGrantRecord } from '../../../lib/state/schemas.ts';

const ANSWER = { schema: okWith(PushGrantRecord.shape) };

// POST /api/plugins/push-install/enable/:label — {durationMinutes?, policyId?}; 200 {ok, label, policyId, enabledAt, expiresAt}.
export default route({
  method: 'POST',
  path: '/api/plugins/push-install/enable/:label',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  response: ANSWER,
  params: AgentLabelParams,
  body: PushEnable,
  async handle({ params, body, services }) {
    return documented(ANSWER, { ok: true, ...(await services.pushInstall.enable(params.label, body)) });
  },
});
