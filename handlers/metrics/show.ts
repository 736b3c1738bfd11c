import { errorResponse, Response } from '../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { z } from 'zod';

// GET /metrics — Prometheus text format; admin certificate, like the rest of the panel (docs/decisions.md).
export default route({
  method: 'GET',
  path: '/metrics',
  access: { roles: ADMIN_ONLY, gate: 'open' },
  answers: { 404: 'Not found: metrics are off in the configuration' },
  response: { schema: z.string(), contentType: 'text/plain; version=0.0.4', kind: 'response' },
  async handle({ services }) {
    const { metrics } = services;
    if (!metrics) return errorResponse(404, 'Not found');
    const { contentType, text } = await metrics.scrape();
    return new Response(text, { headers: { 'content-type': contentType } });
  },
});
