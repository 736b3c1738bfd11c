import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { SiteIdParams } from '../../lib/sites/schema.ts';
import { Ok } from '../../lib/http/response-shapes.ts';

const ANSWER = { schema: Ok };

// DELETE /api/sites/:id — vhost, directory with its files, record.
export default route({
  method: 'DELETE',
  path: '/api/sites/:id',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 404: 'Site not found' },
  response: ANSWER,
  params: SiteIdParams,
  async handle({ params, services }) {
    await services.sites.delete(params.id);
    return { ok: true };
  },
});
