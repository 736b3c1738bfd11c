import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { SiteIdParams } from '../../../lib/sites/schema.ts';
import { AccessAnswer } from '../../../lib/access/response-shapes.ts';

// GET /api/sites/:id/access — who may reach the site (from `allowedUsers` when no access was set).
export default route({
  method: 'GET',
  path: '/api/sites/:id/access',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 404: 'Site not found' },
  response: { schema: AccessAnswer },
  params: SiteIdParams,
  async handle({ params, services }) {
    return { ok: true as const, ...services.access.site(params.id) };
  },
});
