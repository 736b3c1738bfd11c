import { actorOf } from '../../../lib/audit/request-audit.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { TunnelIdParams } from '../../../lib/tunnels/schema.ts';
import { AccessInput } from '../../../lib/access/schema.ts';
import { AccessAnswer, PUBLIC_WARNING } from '../../../lib/access/response-shapes.ts';

// PUT /api/tunnels/:id/access — admin only: record, portal rules and restart (and the vhost when
// `public` changes), all or nothing; the next request meets the new rules.
export default route({
  method: 'PUT',
  path: '/api/tunnels/:id/access',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 400: "Unknown user or group (details.users / details.groups), or users and groups outside mode 'restricted'", 404: 'Tunnel not found' },
  response: { schema: AccessAnswer },
  params: TunnelIdParams,
  body: AccessInput,
  async handle({ params, body, services, identity }) {
    const access = await services.access.setTunnel(params.id, body, actorOf(identity));
    const { app } = services.access.tunnel(params.id);
    return { ok: true as const, app, access, ...(access.mode === 'public' ? { warning: PUBLIC_WARNING } : {}) };
  },
});
