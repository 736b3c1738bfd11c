import { AppError } from '../../lib/errors.ts';
import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { z } from 'zod';
import { ONBOARDING_STATUSES } from '../../lib/config.ts';
import { okWith } from '../../lib/http/response-shapes.ts';

const DnsCheck = z.object({ name: z.string(), addresses: z.array(z.string()), ok: z.boolean(), error: z.string().optional() });

// POST /api/onboarding/verify-dns — DOMAIN_SET or DNS_READY; 200 when the base domain points here,
// 400 saying what it resolves to otherwise. Both carry the whole report: the 400 in `details`, so the
// error keeps the spec's {error, details} shape.
export default route({
  method: 'POST',
  path: '/api/onboarding/verify-dns',
  access: { roles: ADMIN_ONLY, gate: 'onboarding' },
  answers: {
    400: 'Domain not configured; DNS verification failed (details: the report)',
    409: 'The onboarding status does not allow this step (details name the current one)',
  },
  response: { schema: okWith({ status: z.enum(ONBOARDING_STATUSES), domain: z.string(), ip: z.string(), base: DnsCheck, wildcard: DnsCheck, message: z.string() }) },
  async handle({ services }) {
    const { ok, ...report } = await services.onboarding.verifyDns();
    if (!ok) throw new AppError(400, 'DNS verification failed', report);
    return { ok: true, ...report };
  },
});
