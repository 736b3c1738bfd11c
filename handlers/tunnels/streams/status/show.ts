import { z } from 'zod';
import { Capability } from '../../../../lib/auth/capabilities.ts';
import { ADMIN_OR_AGENT, route } from '../../../../lib/http/route.ts';
import { StreamStatusItem } from '../../../../lib/tunnels/streams/status.ts';

// GET /api/tunnels/streams/status — each TCP and UDP tunnel: its client connected, its sessions and bytes.
export default route({
  method: 'GET',
  path: '/api/tunnels/streams/status',
  access: { roles: ADMIN_OR_AGENT, capability: Capability.TunnelsRead, gate: 'management' },
  response: { schema: z.object({ streams: z.array(StreamStatusItem) }) },
  handle: async ({ services }) => ({ streams: await services.tunnels.streams.status(services.traffic) }),
});
