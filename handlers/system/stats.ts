import { jsonText } from '../../lib/http/responses.ts';
import { ADMIN_OR_AGENT, route } from '../../lib/http/route.ts';

// GET /api/system/stats — cpu, memory, disk, uptime; measured at most every 2 s, served as cached bytes.
export default route({
  method: 'GET',
  path: '/api/system/stats',
  access: { roles: ADMIN_OR_AGENT, capability: 'system:read', gate: 'management' },
  async handle({ services }) {
    return jsonText(await services.systemStats.json());
  },
});
