import { Capability } from '../../lib/auth/capabilities.ts';
import { ADMIN_OR_AGENT, route } from '../../lib/http/route.ts';
import { TunnelIdParams, TunnelToggle } from '../../lib/tunnels/schema.ts';
import { okWith } from '../../lib/http/response-shapes.ts';
import { StreamRecord, TunnelRecord } from '../../lib/state/schemas.ts';
import { z } from 'zod';

const ANSWER = { schema: okWith({ tunnel: z.union([TunnelRecord, StreamRecord]) }) };

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
    const { tunnels } = services;
    if (tunnels.streams.has(params.id)) return { ok: true, tunnel: await tunnels.streams.setEnabled(params.id, body.enabled) };
    return { ok: true, tunnel: await tunnels.setEnabled(params.id, body.enabled) };
  },
});
