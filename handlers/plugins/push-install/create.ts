import { z } from 'zod';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { AgentLabelParams } from '../../../lib/certs/schema.ts';
import { PushRequest } from '../../../lib/plugins/push-schema.ts';
import { okWith } from '../../../lib/http/response-shapes.ts';
import { PushSessionRecord } from '../../../lib/state/schemas.ts';

const ANSWER = {
  status: 201,
  schema: okWith({ session: PushSessionRecord, label: z.string(), action: PushSessionRecord.shape.action, packageName: z.string().nullable(), message: z.string() }),
};

// POST /api/plugins/push-install/:label — {packageName (not for check-prerequisites), action?}; checked against the switch, the agent's window and its policy
// (with the client's address, behind the proxy its X-Forwarded-For);
// 201 {ok, session} and Portlama's label, action, packageName, message.
export default route({
  method: 'POST',
  path: '/api/plugins/push-install/:label',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: {
    400: 'Push install is not enabled',
    403: 'Push install access not enabled for the agent; the source IP, action or package is not allowed by its policy',
    404: 'Agent certificate \"<label>\" not found',
  },
  response: ANSWER,
  params: AgentLabelParams,
  body: PushRequest,
  async handle({ params, body, services, clientAddress }) {
    const session = await services.pushInstall.push(params.label, body, clientAddress());
    const message = `Push install command "${session.action}" sent to agent "${session.label}"`;
    return { ok: true, session, label: session.label, action: session.action, packageName: session.packageName, message };
  },
});
