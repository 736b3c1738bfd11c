import { DomainInput } from '../../../lib/onboarding/domain-rules.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { z } from 'zod';
import { ONBOARDING_STATUSES } from '../../../lib/config.ts';
import { okWith } from '../../../lib/http/response-shapes.ts';

const ANSWER = { schema: okWith({ status: z.enum(ONBOARDING_STATUSES), domain: z.string().nullable(), email: z.string().nullable() }) };

// POST /api/onboarding/domain — FRESH or DOMAIN_SET -> DOMAIN_SET.
export default route({
  method: 'POST',
  path: '/api/onboarding/domain',
  access: { roles: ADMIN_ONLY, gate: 'onboarding' },
  answers: { 409: 'The onboarding status does not allow this step (details name the current one)' },
  response: ANSWER,
  body: DomainInput,
  async handle({ body, services }) {
    return { ok: true, ...(await services.onboarding.setDomain(body)) };
  },
});
