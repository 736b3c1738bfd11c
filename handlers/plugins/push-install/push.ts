import { json } from '../../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { AgentLabelParams } from '../../../lib/certs/schema.ts';
import { PushRequest } from '../../../lib/plugins/push-schema.ts';

// POST /api/plugins/push-install/:label — {packageName, action?}; checked against the switch, the agent's window and its policy; 201 {ok, session}.
export default route<AgentLabelParams, Record<string, never>, PushRequest>({
  method: 'POST',
  path: '/api/plugins/push-install/:label',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  params: AgentLabelParams,
  body: PushRequest,
  async handle({ params, body, services }) {
    return json({ ok: true, session: await services.pushInstall.push(params.label, body) }, 201);
  },
});
