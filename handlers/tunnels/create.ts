import { Capability } from '../../lib/auth/capabilities.ts';
import { actorOf } from '../../lib/audit/request-audit.ts';
import { AppError } from '../../lib/errors.ts';
import { ADMIN_OR_AGENT, route } from '../../lib/http/route.ts';
import { HttpTunnelCreate, StreamCreate } from '../../lib/tunnels/streams/schema.ts';
import { okWith } from '../../lib/http/response-shapes.ts';
import { StreamRecord, TunnelRecord } from '../../lib/state/schemas.ts';
import { AccessInput } from '../../lib/access/schema.ts';
import { z } from 'zod';

const ANSWER = { status: 201, schema: okWith({ tunnel: z.union([TunnelRecord, StreamRecord]) }) };

/** An agent creates tunnels with the default access only: who may reach an app is the admin's call. */
export const AGENT_ACCESS_REFUSED = 'Insufficient certificate scope: only an admin may set a tunnel\'s access';

// POST /api/tunnels — certificate, vhost, tunnel server, record; 201 {ok, tunnel}. With `protocol`
// tcp or udp: a stream server on a public port instead of the certificate and the vhost. `access`
// (an addition, admin only, HTTP tunnels) is checked first (an unknown user or group: 400, nothing
// made), then applied once the tunnel exists, as PUT /api/tunnels/:id/access would; when that fails
// the tunnel is deleted again, so no tunnel is left open to more people than asked.
export default route({
  method: 'POST',
  path: '/api/tunnels',
  access: { roles: ADMIN_OR_AGENT, capability: Capability.TunnelsWrite, gate: 'management' },
  answers: { 400: 'Subdomain reserved or in use, port in use, or domain and email not configured; a TCP or UDP tunnel\'s public port outside the range or in use (the message names what holds it); with `access`, a user or group that does not exist (nothing is made)' },
  response: ANSWER,
  body: z.discriminatedUnion('protocol', [HttpTunnelCreate.extend({ access: AccessInput.optional() }), StreamCreate]),
  async handle({ body, services, identity }) {
    if ('publicPort' in body) return { ok: true, tunnel: await services.tunnels.streams.create(body) };
    const { access, ...input } = body;
    if (access && identity.role !== 'admin') throw new AppError(403, AGENT_ACCESS_REFUSED);
    if (access) await services.access.check(access);
    const tunnel = await services.tunnels.create(input);
    if (!access) return { ok: true, tunnel };
    try {
      await services.access.setTunnel(tunnel.id, access, actorOf(identity));
    } catch (e) {
      await services.tunnels.delete(tunnel.id).catch((error: Error) => services.log.warn(`tunnel ${tunnel.fqdn}: its access failed and so did its removal: ${error.message}`));
      throw e;
    }
    return { ok: true, tunnel: services.store.tunnels.get(tunnel.id) ?? tunnel };
  },
});
