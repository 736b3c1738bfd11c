import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { DomainParams } from '../../lib/certs/schema.ts';
import { z } from 'zod';
import { okWith } from '../../lib/http/response-shapes.ts';

// POST /api/certs/:domain/renew — forced certbot renewal and nginx reload; {ok, domain, newExpiry}; unknown name 404.
export default route({
  method: 'POST',
  path: '/api/certs/:domain/renew',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 404: 'Certificate not found' },
  response: { schema: okWith({ domain: z.string(), newExpiry: z.string().nullable() }) },
  params: DomainParams,
  async handle({ params, services }) {
    return { ok: true, ...(await services.letsEncrypt.renew(params.domain)) };
  },
});
