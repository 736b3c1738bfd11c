import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { SiteIdParams } from '../../lib/sites/schema.ts';
import { z } from 'zod';

// POST /api/sites/:id/verify-dns — custom sites: 200 with ok false until the name resolves to the host.
export default route({
  method: 'POST',
  path: '/api/sites/:id/verify-dns',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 400: 'DNS verification is only needed for custom domains', 404: 'Site not found' },
  response: { schema: z.union([z.object({ ok: z.literal(true), message: z.string() }), z.object({ ok: z.literal(false), fqdn: z.string(), expectedIp: z.string(), resolvedIps: z.array(z.string()), message: z.string() })]) },
  params: SiteIdParams,
  async handle({ params, services }) {
    return await services.sites.verifyDns(params.id);
  },
});
