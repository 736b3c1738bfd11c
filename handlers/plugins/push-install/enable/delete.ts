import { ADMIN_ONLY, route } from '../../../../lib/http/route.ts';
import { AgentLabelParams } from '../../../../lib/certs/schema.ts';
import { z } from 'zod';
import { okWith } from '../../../../lib/http/response-shapes.ts';

const ANSWER = { schema: okWith({ label: z.string() }) };

// DELETE /api/plugins/push-install/enable/:label — ends the agent's push-install window if open; 404 for no such agent; 200 {ok, label}.
export default route({
  method: 'DELETE',
  path: '/api/plugins/push-install/enable/:label',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 404: 'Agent certificate \"<label>\" not found' },
  response: ANSWER,
  params: AgentLabelParams,
  async handle({ params, services }) {
    await services.pushInstall.disable(params.label);
    return { ok: true, label: params.label };
  },
});
