import { Capability } from '../../../lib/auth/capabilities.ts';
import { ADMIN_OR_AGENT, route } from '../../../lib/http/route.ts';
import { TunnelIdParams } from '../../../lib/tunnels/schema.ts';
import { TunnelTraffic, tunnelTraffic } from '../../../lib/tunnels/traffic.ts';

const ANSWER = { schema: TunnelTraffic };

// GET /api/tunnels/:id/traffic — the last hour per minute: requests, errors, p50/p95 latency (the
// per-tunnel page's chart); kept out of /api/tunnels/status, which every list viewer gets for every tunnel.
export default route({
  method: 'GET',
  path: '/api/tunnels/:id/traffic',
  access: { roles: ADMIN_OR_AGENT, capability: Capability.TunnelsRead, gate: 'management' },
  answers: { 404: 'Tunnel not found' },
  response: ANSWER,
  params: TunnelIdParams,
  handle: async ({ params, services }) => tunnelTraffic(services.store, services.traffic, params.id),
});
