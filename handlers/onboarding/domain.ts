import { DomainInput } from '../../lib/onboarding/domain-rules.ts';
import { json } from '../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../lib/http/route.ts';

// POST /api/onboarding/domain — FRESH or DOMAIN_SET -> DOMAIN_SET.
export default route({
  method: 'POST',
  path: '/api/onboarding/domain',
  access: { roles: ADMIN_ONLY, gate: 'onboarding' },
  body: DomainInput,
  async handle({ body, services }) {
    return json({ ok: true, ...(await services.onboarding.setDomain(body)) });
  },
});
