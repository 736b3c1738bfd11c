import { ADMIN_OR_AGENT, route } from '../../lib/http/route.ts';
import { ServiceActionParams } from '../../lib/service-control/schema.ts';
import { z } from 'zod';
import { okWith } from '../../lib/http/response-shapes.ts';

// POST /api/services/:name/:action — start, stop, restart or reload; 200 {ok, name, action, service}
// with the state the action left, so the panel needs no second call.
export default route({
  method: 'POST',
  path: '/api/services/:name/:action',
  access: { roles: ADMIN_OR_AGENT, capability: 'services:write', gate: 'management' },
  response: { schema: okWith({ name: z.string(), action: z.string(), service: z.object({ name: z.string(), status: z.enum(['active', 'inactive', 'failed', 'unknown']), uptime: z.string() }) }) },
  params: ServiceActionParams,
  async handle({ params, services }) {
    const service = await services.serviceControl.act(params.name, params.action);
    return { ok: true, name: params.name, action: params.action, service };
  },
});
