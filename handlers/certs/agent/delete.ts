import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { AgentLabelParams } from '../../../lib/certs/schema.ts';
import { z } from 'zod';
import { okWith } from '../../../lib/http/response-shapes.ts';

// DELETE /api/certs/agent/:label — revokes the serial, regenerates the CRL, reloads nginx; 200 {ok, label, serial, revokedAt}.
export default route({
  method: 'DELETE',
  path: '/api/certs/agent/:label',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 404: 'Agent certificate \"<label>\" not found' },
  response: { schema: okWith({ label: z.string(), serial: z.string(), revokedAt: z.string() }) },
  params: AgentLabelParams,
  async handle({ params, services }) {
    return { ok: true, ...(await services.agentCerts.revoke(params.label)) };
  },
});
