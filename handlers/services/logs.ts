import { ADMIN_OR_AGENT, wsRoute } from '../../lib/http/route.ts';
import { ServiceParams } from '../../lib/service-control/schema.ts';
import { z } from 'zod';

// WS /api/services/:name/logs — the last 100 journal lines, then new ones, each {timestamp, message};
// every viewer of a service shares one follow process.
export default wsRoute({
  path: '/api/services/:name/logs',
  access: { roles: ADMIN_OR_AGENT, capability: 'services:read', gate: 'management' },
  response: { schema: z.object({ timestamp: z.string(), message: z.string() }).loose() },
  params: ServiceParams,
  connect({ params, services }, socket) {
    services.serviceControl.attachLogViewer(params.name, socket);
  },
});
