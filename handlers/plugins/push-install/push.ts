import { documented } from '../../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { AgentLabelParams } from '../../../lib/certs/schema.ts';
import { PushRequest } from '../../../lib/plugins/push-schema.ts';
import { okWith } from '../../../lib/http/response-shapes.ts';
import { PushSessionRecord } from '../../../lib/state/schemas.ts';

const ANSWER = { status: 201, schema: okWith({ session: PushSessionRecord }) };

// POST /api/plugins/push-install/:label — {packageName, action?}; checked against the switch, the agent's window and its policy; 201 {ok, session}.
export default route({
  method: 'POST',
  path: '/api/plugins/push-install/:label',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  response: ANSWER,
  params: AgentLabelParams,
  body: PushRequest,
  async handle({ params, body, services }) {
    return documented(ANSWER, { ok: true, session: await services.pushInstall.push(params.label, body) });
  },
});
