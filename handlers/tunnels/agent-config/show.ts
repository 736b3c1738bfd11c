import { Capability } from '../../../lib/auth/capabilities.ts';
import { ADMIN_OR_AGENT, route } from '../../../lib/http/route.ts';
import { z } from 'zod';

// GET /api/tunnels/agent-config — enabled tunnels as tunnel-client arguments, from memory; `streams`:
// the TCP and UDP tunnels' sessions, present when the box has any.
export default route({
  method: 'GET',
  path: '/api/tunnels/agent-config',
  access: { roles: ADMIN_OR_AGENT, capability: Capability.TunnelsRead, gate: 'management' },
  response: { kind: 'bytes', schema: z.object({ domain: z.string(), chiselServerUrl: z.string(), chiselArgs: z.array(z.string()), tunnels: z.array(z.object({ port: z.number(), subdomain: z.string() })), clients: z.array(z.object({ port: z.number(), subdomain: z.string(), chiselArgs: z.array(z.string()) })), env: z.object({ AUTH: z.string() }), fingerprint: z.string(), streams: z.array(z.object({ id: z.string(), protocol: z.enum(['tcp', 'udp']), publicPort: z.number(), port: z.number(), remote: z.string(), chiselArgs: z.array(z.string()) })).optional() }) },
  handle: async ({ services }) => await services.tunnels.agentConfigJson(),
});
