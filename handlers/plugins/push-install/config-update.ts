import { documented } from '../../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { PushConfigUpdate } from '../../../lib/plugins/push-schema.ts';
import { okWith } from '../../../lib/http/response-shapes.ts';
import { PushConfig } from '../../../lib/plugins/response-shapes.ts';

const ANSWER = { schema: okWith({ config: PushConfig }) };

// PATCH /api/plugins/push-install/config — {enabled?, defaultPolicyId?}; 200 {ok, config}.
export default route({
  method: 'PATCH',
  path: '/api/plugins/push-install/config',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  response: ANSWER,
  body: PushConfigUpdate,
  async handle({ body, services }) {
    return documented(ANSWER, { ok: true, config: await services.pushInstall.updateConfig(body) });
  },
});
