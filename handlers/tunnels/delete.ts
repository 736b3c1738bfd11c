import { Capability } from '../../lib/auth/capabilities.ts';
import { ADMIN_OR_AGENT, route } from '../../lib/http/route.ts';
import { TunnelIdParams } from '../../lib/tunnels/schema.ts';
import { Ok } from '../../lib/http/response-shapes.ts';

const ANSWER = { schema: Ok };

// DELETE /api/tunnels/:id — 200 {ok}; the certificate is kept; its access rules leave the portal.
// A TCP or UDP tunnel's id removes its stream server.
export default route({
  method: 'DELETE',
  path: '/api/tunnels/:id',
  access: { roles: ADMIN_OR_AGENT, capability: Capability.TunnelsWrite, gate: 'management' },
  answers: { 404: 'Tunnel not found' },
  response: ANSWER,
  params: TunnelIdParams,
  async handle({ params, services }) {
    const { tunnels } = services;
    if (tunnels.streams.has(params.id)) {
      await tunnels.streams.delete(params.id);
    } else {
      const gone = services.store.tunnels.get(params.id);
      await tunnels.delete(params.id);
      // its portal rules go too: a tunnel made again under the name must start from the default
      if (gone) await services.access.forgetTunnel(gone);
    }
    return { ok: true };
  },
});
