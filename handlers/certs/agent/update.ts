import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { AgentGrantsUpdate, AgentLabelParams } from '../../../lib/certs/schema.ts';
import { z } from 'zod';
import { okWith } from '../../../lib/http/response-shapes.ts';

// PATCH /api/certs/agent/:label — capabilities and allowed sites in one change, beside the spec's
// two routes: every value is checked before anything is written, so a refusal changes neither list.
export default route({
  method: 'PATCH',
  path: '/api/certs/agent/:label',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: {
    400: "Unknown capability '<name>' or Unknown site '<name>' (capabilities are checked first); nothing is changed",
    404: 'Agent certificate \"<label>\" not found',
  },
  response: { schema: okWith({ label: z.string(), capabilities: z.array(z.string()), allowedSites: z.array(z.string()) }) },
  params: AgentLabelParams,
  body: AgentGrantsUpdate,
  async handle({ params, body, services }) {
    return { ok: true, ...(await services.agentCerts.setGrants(params.label, body)) };
  },
});
