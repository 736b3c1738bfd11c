import { Capability } from '../../../lib/auth/capabilities.ts';
import { ADMIN_OR_AGENT, route } from '../../../lib/http/route.ts';
import { okWith } from '../../../lib/http/response-shapes.ts';
import { StreamRecord } from '../../../lib/state/schemas.ts';
import { StreamSettings } from '../../../lib/tunnels/streams/schema.ts';
import { TunnelIdParams } from '../../../lib/tunnels/schema.ts';

// PATCH /api/tunnels/streams/:id — a TCP or UDP tunnel's settings; 200 {ok, tunnel}. A public
// port change moves the stream server, all or nothing. Enable and disable: PATCH /api/tunnels/:id.
export default route({
  method: 'PATCH',
  path: '/api/tunnels/streams/:id',
  access: { roles: ADMIN_OR_AGENT, capability: Capability.TunnelsWrite, gate: 'management' },
  answers: {
    400: 'Public port outside the range or in use (details.issues names `publicPort` and what holds it); nothing is changed',
    404: 'Tunnel not found',
  },
  response: { schema: okWith({ tunnel: StreamRecord }) },
  params: TunnelIdParams,
  body: StreamSettings,
  async handle({ params, body, services }) {
    return { ok: true, tunnel: await services.tunnels.streams.edit(params.id, body) };
  },
});
