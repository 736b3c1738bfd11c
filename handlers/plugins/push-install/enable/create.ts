import { z } from 'zod';
import { ADMIN_ONLY, route } from '../../../../lib/http/route.ts';
import { AgentLabelParams } from '../../../../lib/certs/schema.ts';
import { PushEnable } from '../../../../lib/plugins/push-schema.ts';
import { okWith } from '../../../../lib/http/response-shapes.ts';
import { PushGrantRecord } from '../../../../lib/state/schemas.ts';

const ANSWER = { schema: okWith({ ...PushGrantRecord.shape, pushInstallEnabledUntil: z.string(), pushInstallPolicy: z.string() }) };

// POST /api/plugins/push-install/enable/:label — {durationMinutes? (5-480, 60), policyId?}; 400 while the switch is off;
// 200 {ok, label, policyId, enabledAt, expiresAt} and Portlama's names pushInstallEnabledUntil, pushInstallPolicy.
export default route({
  method: 'POST',
  path: '/api/plugins/push-install/enable/:label',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 400: 'Push install is not enabled, or the policy is unknown', 404: 'Agent certificate \"<label>\" not found' },
  response: ANSWER,
  params: AgentLabelParams,
  body: PushEnable,
  async handle({ params, body, services }) {
    const grant = await services.pushInstall.enable(params.label, body);
    return { ok: true, ...grant, pushInstallEnabledUntil: grant.expiresAt, pushInstallPolicy: grant.policyId };
  },
});
