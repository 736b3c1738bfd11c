import { z } from 'zod';
import { Capability } from '../../../lib/auth/capabilities.ts';
import { ADMIN_OR_AGENT, route } from '../../../lib/http/route.ts';
import { TunnelStatusItem } from '../../../lib/tunnels/status.ts';

const ANSWER = { kind: 'bytes' as const, schema: z.object({ tunnels: z.array(TunnelStatusItem) }) };

// GET /api/tunnels/status — per tunnel: connected, connectedSince, lastSeen (the client's session
// holds the tunnel's reverse port on the relay's loopback), as bytes built once per change.
export default route({
  method: 'GET',
  path: '/api/tunnels/status',
  access: { roles: ADMIN_OR_AGENT, capability: Capability.TunnelsRead, gate: 'management' },
  response: ANSWER,
  handle: async ({ services }) => await services.tunnelStatus.json(),
});
