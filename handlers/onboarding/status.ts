import { documented } from '../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { z } from 'zod';
import { ONBOARDING_STATUSES } from '../../lib/config.ts';

const ANSWER = { schema: z.object({ status: z.enum(ONBOARDING_STATUSES), domain: z.string().nullable(), email: z.string().nullable() }) };

// GET /api/onboarding/status — outside the onboarding gate: answers before and after COMPLETED.
export default route({
  method: 'GET',
  path: '/api/onboarding/status',
  access: { roles: ADMIN_ONLY, gate: 'open' },
  response: ANSWER,
  handle({ services }) {
    return documented(ANSWER, services.onboarding.state());
  },
});
