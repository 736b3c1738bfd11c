import { Capability } from '../../../lib/auth/capabilities.ts';
import { ADMIN_OR_AGENT, route } from '../../../lib/http/route.ts';
import { TunnelIdParams } from '../../../lib/tunnels/schema.ts';
import { AccessAnswer, PUBLIC_WARNING } from '../../../lib/access/response-shapes.ts';

// GET /api/tunnels/:id/access — who may reach the tunnel; the default when it has none set.
export default route({
  method: 'GET',
  path: '/api/tunnels/:id/access',
  access: { roles: ADMIN_OR_AGENT, capability: Capability.TunnelsRead, gate: 'management' },
  answers: { 404: 'Tunnel not found' },
  response: { schema: AccessAnswer },
  params: TunnelIdParams,
  async handle({ params, services }) {
    const { app, access } = services.access.tunnel(params.id);
    return { ok: true as const, app, access, ...(access.mode === 'public' ? { warning: PUBLIC_WARNING } : {}) };
  },
});
