import { ADMIN_OR_AGENT, route } from '../../../lib/http/route.ts';
import { z } from 'zod';

const Usage = z.object({ total: z.number(), used: z.number(), free: z.number() });

// GET /api/system/stats — cpu, memory, disk, uptime; measured at most every 2 s, served as cached bytes.
export default route({
  method: 'GET',
  path: '/api/system/stats',
  access: { roles: ADMIN_OR_AGENT, capability: 'system:read', gate: 'management' },
  response: { kind: 'bytes', schema: z.object({ cpu: z.object({ usage: z.number(), cores: z.number() }), memory: Usage, disk: Usage, uptime: z.number() }) },
  async handle({ services }) {
    return await services.systemStats.json();
  },
});
