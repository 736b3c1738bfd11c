import { attachment } from '../../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { AgentLabelParams } from '../../../lib/certs/schema.ts';
import { z } from 'zod';

// GET /api/certs/agent/:label/download — the agent's PKCS#12 bundle (the password was shown at issue).
export default route({
  method: 'GET',
  path: '/api/certs/agent/:label/download',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 404: 'Agent certificate \"<label>\" not found, or it has no PKCS#12 bundle (enrolled with a CSR)' },
  response: { schema: z.string(), contentType: 'application/x-pkcs12', kind: 'response' },
  params: AgentLabelParams,
  async handle({ params, services }) {
    return attachment(await services.agentCerts.download(params.label), 'application/x-pkcs12', `${params.label}.p12`);
  },
});
