import { Capability } from '../../../../lib/auth/capabilities.ts';
import { ADMIN_OR_AGENT, route } from '../../../../lib/http/route.ts';
import { TunnelIdParams } from '../../../../lib/tunnels/schema.ts';
import { TunnelTraffic, tunnelTraffic } from '../../../../lib/tunnels/traffic.ts';

// GET /api/tunnels/streams/:id/traffic — a TCP or UDP tunnel's last hour per minute: sessions (as
// `requests`), bytes each way, errors (502: no client listened) and session lengths, for its page's
// chart; the HTTP tunnels' answer, so the panel draws both alike. An HTTP tunnel's id is not found here.
export default route({
  method: 'GET',
  path: '/api/tunnels/streams/:id/traffic',
  access: { roles: ADMIN_OR_AGENT, capability: Capability.TunnelsRead, gate: 'management' },
  answers: { 404: 'Tunnel not found' },
  response: { schema: TunnelTraffic },
  params: TunnelIdParams,
  handle: async ({ params, services }) => tunnelTraffic(services.store, services.traffic, params.id, 'stream'),
});
