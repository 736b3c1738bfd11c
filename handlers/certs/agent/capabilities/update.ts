import { ADMIN_ONLY, route } from '../../../../lib/http/route.ts';
import { AgentLabelParams, CapabilitiesUpdate } from '../../../../lib/certs/schema.ts';
import { z } from 'zod';
import { okWith } from '../../../../lib/http/response-shapes.ts';

// PATCH /api/certs/agent/:label/capabilities — replaces the list; applies to the agent's next request.
export default route({
  method: 'PATCH',
  path: '/api/certs/agent/:label/capabilities',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 400: "Unknown capability '<name>'", 404: 'Agent certificate \"<label>\" not found' },
  response: { schema: okWith({ label: z.string(), capabilities: z.array(z.string()) }) },
  params: AgentLabelParams,
  body: CapabilitiesUpdate,
  async handle({ params, body, services }) {
    return { ok: true, ...(await services.agentCerts.setCapabilities(params.label, body.capabilities)) };
  },
});
