import { Capability } from '../../lib/auth/capabilities.ts';
import { jsonText } from '../../lib/http/responses.ts';
import { ADMIN_OR_AGENT, route } from '../../lib/http/route.ts';

// GET /api/tunnels/agent-config — enabled tunnels as tunnel-client arguments, from memory.
export default route({
  method: 'GET',
  path: '/api/tunnels/agent-config',
  access: { roles: ADMIN_OR_AGENT, capability: Capability.TunnelsRead, gate: 'management' },
  handle: async ({ services }) => jsonText(await services.tunnels.agentConfigJson()),
});
