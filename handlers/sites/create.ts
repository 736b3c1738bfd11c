import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { SiteCreate } from '../../lib/sites/schema.ts';
import { z } from 'zod';
import { SiteRecord } from '../../lib/state/schemas.ts';
import { okWith } from '../../lib/http/response-shapes.ts';

const CUSTOM_MESSAGE = 'Site created. Add an A record pointing the domain to this server, then verify DNS.';

// POST /api/sites — managed: live when answered; custom: waits for verify-dns. The create answer has no allowedUsers.
export default route({
  method: 'POST',
  path: '/api/sites',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 400: 'Domain and email not configured; name or domain reserved or already in use' },
  response: { status: 201, schema: okWith({ site: SiteRecord.omit({ allowedUsers: true }), message: z.string().optional() }) },
  body: SiteCreate,
  async handle({ body, services }) {
    const { allowedUsers: _omitted, ...site } = await services.sites.create(body);
    return site.type === 'custom' ? { ok: true, site, message: CUSTOM_MESSAGE } : { ok: true, site };
  },
});
