import { jsonText } from '../../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { z } from 'zod';

// GET /api/certs/agent — every agent ever issued, revoked ones included, from the cached serialization.
export default route({
  method: 'GET',
  path: '/api/certs/agent',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  response: { schema: z.object({ agents: z.array(z.object({ label: z.string(), serial: z.string() }).loose()) }) },
  handle: ({ services }) => jsonText(services.agentCerts.listJson()),
});
