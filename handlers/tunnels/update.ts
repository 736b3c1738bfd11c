import { Capability } from '../../lib/auth/capabilities.ts';
import { ADMIN_OR_AGENT, route } from '../../lib/http/route.ts';
import { TunnelIdParams, TunnelToggle } from '../../lib/tunnels/schema.ts';
import { okWith } from '../../lib/http/response-shapes.ts';
import { TunnelRecord } from '../../lib/state/schemas.ts';

const ANSWER = { schema: okWith({ tunnel: TunnelRecord }) };

// PATCH /api/tunnels/:id — {enabled}; 200 {ok, tunnel}.
export default route({
  method: 'PATCH',
  path: '/api/tunnels/:id',
  access: { roles: ADMIN_OR_AGENT, capability: Capability.TunnelsWrite, gate: 'management' },
  answers: { 404: 'Tunnel not found' },
  response: ANSWER,
  params: TunnelIdParams,
  body: TunnelToggle,
  async handle({ params, body, services }) {
    return { ok: true, tunnel: await services.tunnels.setEnabled(params.id, body.enabled) };
  },
});
