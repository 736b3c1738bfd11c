import { ADMIN_ONLY, route } from '../../../../lib/http/route.ts';
import { PushConfigUpdate } from '../../../../lib/plugins/push-schema.ts';
import { okWith } from '../../../../lib/http/response-shapes.ts';
import { PushConfig } from '../../../../lib/plugins/response-shapes.ts';

const ANSWER = { schema: okWith({ ...PushConfig.shape, config: PushConfig }) };

// PATCH /api/plugins/push-install/config — {enabled?, defaultPolicy? (or defaultPolicyId)}; an unknown policy 400;
// 200 Portlama's {ok, ...config}, and `config` as our older answer had it.
export default route({
  method: 'PATCH',
  path: '/api/plugins/push-install/config',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 400: 'Policy \"<id>\" not found' },
  response: ANSWER,
  body: PushConfigUpdate,
  async handle({ body, services }) {
    const config = await services.pushInstall.updateConfig(body);
    return { ok: true, ...config, config };
  },
});
