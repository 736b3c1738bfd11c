import { ADMIN_OR_AGENT, route } from '../../lib/http/route.ts';
import { z } from 'zod';

// GET /api/services — {services: [{name, status, uptime}]} for proxy, tunnel-server, auth-portal, panel.
export default route({
  method: 'GET',
  path: '/api/services',
  access: { roles: ADMIN_OR_AGENT, capability: 'services:read', gate: 'management' },
  response: { schema: z.object({ services: z.array(z.object({ name: z.string(), status: z.enum(['active', 'inactive', 'failed', 'unknown']), uptime: z.string() })) }) },
  async handle({ services }) {
    return { services: await services.serviceControl.list() };
  },
});
