import { actorOf } from '../../../lib/audit/request-audit.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { SiteIdParams } from '../../../lib/sites/schema.ts';
import { SiteAccessInput } from '../../../lib/access/schema.ts';
import { AccessAnswer } from '../../../lib/access/response-shapes.ts';

// PUT /api/sites/:id/access — admin only; `allowedUsers` follows (the restriction's users, else none).
export default route({
  method: 'PUT',
  path: '/api/sites/:id/access',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 400: 'Unknown user or group, or a site made public', 404: 'Site not found' },
  response: { schema: AccessAnswer },
  params: SiteIdParams,
  body: SiteAccessInput,
  async handle({ params, body, services, identity }) {
    await services.access.setSite(params.id, body, actorOf(identity));
    return { ok: true as const, ...services.access.site(params.id) };
  },
});
