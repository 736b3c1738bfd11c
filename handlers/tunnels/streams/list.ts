import { z } from 'zod';
import { Capability } from '../../../lib/auth/capabilities.ts';
import { ADMIN_OR_AGENT, route } from '../../../lib/http/route.ts';
import { StreamRecord } from '../../../lib/state/schemas.ts';

// GET /api/tunnels/streams — the TCP and UDP tunnels, newest first; `?protocol=tcp|udp` one kind.
// Apart from GET /api/tunnels, whose records the spec fixes and whose clients read a subdomain in each.
export default route({
  method: 'GET',
  path: '/api/tunnels/streams',
  access: { roles: ADMIN_OR_AGENT, capability: Capability.TunnelsRead, gate: 'management' },
  query: z.object({ protocol: z.enum(['tcp', 'udp']).optional() }),
  response: { schema: z.object({ streams: z.array(StreamRecord) }) },
  handle: ({ query, services }) => ({ streams: services.tunnels.streams.list(query.protocol) }),
});
