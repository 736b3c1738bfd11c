import { Capability } from '../../lib/auth/capabilities.ts';
import { ADMIN_OR_AGENT, route } from '../../lib/http/route.ts';
import { z } from 'zod';
import { TunnelRecord } from '../../lib/state/schemas.ts';

// GET /api/tunnels — newest first, served from the cached serialization.
export default route({
  method: 'GET',
  path: '/api/tunnels',
  access: { roles: ADMIN_OR_AGENT, capability: Capability.TunnelsRead, gate: 'management' },
  response: { kind: 'bytes', schema: z.object({ tunnels: z.array(TunnelRecord) }) },
  handle: ({ services }) => services.tunnels.listJson(),
});
