import { json } from '../../lib/http/responses.ts';
import { ADMIN_OR_AGENT, route } from '../../lib/http/route.ts';

// GET /api/services — {services: [{name, status, uptime}]} for proxy, tunnel-server, auth-portal, panel.
export default route({
  method: 'GET',
  path: '/api/services',
  access: { roles: ADMIN_OR_AGENT, capability: 'services:read', gate: 'management' },
  async handle({ services }) {
    return json({ services: await services.serviceControl.list() });
  },
});
