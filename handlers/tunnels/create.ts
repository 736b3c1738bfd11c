import { Capability } from '../../lib/auth/capabilities.ts';
import { ADMIN_OR_AGENT, route } from '../../lib/http/route.ts';
import { AnyTunnelCreate } from '../../lib/streams/schema.ts';
import { okWith } from '../../lib/http/response-shapes.ts';
import { StreamRecord, TunnelRecord } from '../../lib/state/schemas.ts';
import { z } from 'zod';

const ANSWER = { status: 201, schema: okWith({ tunnel: z.union([TunnelRecord, StreamRecord]) }) };

// POST /api/tunnels — certificate, vhost, tunnel server, record; 201 {ok, tunnel}. With `protocol`
// tcp or udp: a stream server on a public port instead of the certificate and the vhost.
export default route({
  method: 'POST',
  path: '/api/tunnels',
  access: { roles: ADMIN_OR_AGENT, capability: Capability.TunnelsWrite, gate: 'management' },
  answers: { 400: 'Subdomain reserved or in use, port in use, or domain and email not configured; a TCP or UDP tunnel\'s public port outside the range or in use (the message names what holds it)' },
  response: ANSWER,
  body: AnyTunnelCreate,
  async handle({ body, services }) {
    if ('publicPort' in body) return { ok: true, tunnel: await services.tunnels.streams.create(body) };
    return { ok: true, tunnel: await services.tunnels.create(body) };
  },
});
