import { ADMIN_ONLY, route } from '../../../../lib/http/route.ts';
import { AgentLabelParams } from '../../../../lib/certs/schema.ts';
import { z } from 'zod';
import { okWith } from '../../../../lib/http/response-shapes.ts';

// DELETE /api/certs/agent/:label/record — takes a label's revoked records off the list; their
// serials stay on the revocation list and the CRL. An active agent must be revoked first.
export default route({
  method: 'DELETE',
  path: '/api/certs/agent/:label/record',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: {
    404: 'Agent certificate \"<label>\" not found',
    409: "Agent certificate '<label>' is active: revoke it before removing it",
  },
  response: { schema: okWith({ label: z.string(), serials: z.array(z.string()) }) },
  params: AgentLabelParams,
  async handle({ params, services }) {
    return { ok: true, ...(await services.agentCerts.remove(params.label)) };
  },
});
