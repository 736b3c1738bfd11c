import { Capability } from '../../lib/auth/capabilities.ts';
import { ADMIN_OR_AGENT, route } from '../../lib/http/route.ts';
import { TunnelCreate } from '../../lib/tunnels/schema.ts';
import { okWith } from '../../lib/http/response-shapes.ts';
import { TunnelRecord } from '../../lib/state/schemas.ts';

const ANSWER = { status: 201, schema: okWith({ tunnel: TunnelRecord }) };

// POST /api/tunnels — certificate, vhost, tunnel server, record; 201 {ok, tunnel}.
export default route({
  method: 'POST',
  path: '/api/tunnels',
  access: { roles: ADMIN_OR_AGENT, capability: Capability.TunnelsWrite, gate: 'management' },
  answers: { 400: 'Subdomain reserved or in use, port in use, or domain and email not configured' },
  response: ANSWER,
  body: TunnelCreate,
  async handle({ body, services }) {
    return { ok: true, tunnel: await services.tunnels.create(body) };
  },
});
