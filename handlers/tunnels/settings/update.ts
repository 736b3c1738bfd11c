import { Capability } from '../../../lib/auth/capabilities.ts';
import { ADMIN_OR_AGENT, route } from '../../../lib/http/route.ts';
import { TunnelIdParams, TunnelSettings } from '../../../lib/tunnels/schema.ts';
import { okWith } from '../../../lib/http/response-shapes.ts';
import { TunnelRecord } from '../../../lib/state/schemas.ts';

const ANSWER = { schema: okWith({ tunnel: TunnelRecord }) };

// PATCH /api/tunnels/:id/settings — {port?, description?}; 200 {ok, tunnel}. Beside the spec's
// PATCH /api/tunnels/:id, which requires `enabled`; a port change moves the vhost and the grant, all or nothing.
export default route({
  method: 'PATCH',
  path: '/api/tunnels/:id/settings',
  access: { roles: ADMIN_OR_AGENT, capability: Capability.TunnelsWrite, gate: 'management' },
  answers: {
    400: "Port in use by another tunnel or reserved for the relay's own services (details.issues names `port`); nothing is changed",
    404: 'Tunnel not found',
  },
  response: ANSWER,
  params: TunnelIdParams,
  body: TunnelSettings,
  async handle({ params, body, services }) {
    return { ok: true, tunnel: await services.tunnels.edit(params.id, body) };
  },
});
