import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { z } from 'zod';
import { ONBOARDING_STATUSES } from '../../../lib/config.ts';

const ANSWER = {
  schema: z.object({
    status: z.enum(ONBOARDING_STATUSES),
    domain: z.string().nullable(),
    email: z.string().nullable(),
    // beyond the spec's three: what the panel needs to link to the names it serves (lib/public-links.ts)
    suggestedDomain: z.string().nullable().describe('The domain onboarding offers prefilled: relay.localhost in the sandbox, none on a real host'),
    publicLinks: z
      .object({ scheme: z.enum(['http', 'https']), port: z.number().int().nullable() })
      .describe("How a browser opens a tunnel, a site, panel. or auth.: <scheme>://<name>[:<port>]; port null is the scheme's default"),
  }),
};

// GET /api/onboarding/status — outside the onboarding gate: answers before and after COMPLETED.
export default route({
  method: 'GET',
  path: '/api/onboarding/status',
  access: { roles: ADMIN_ONLY, gate: 'open' },
  response: ANSWER,
  handle({ services }) {
    const { publicLinks } = services;
    return { ...services.onboarding.state(), suggestedDomain: publicLinks.suggestedDomain(), publicLinks: publicLinks.base() };
  },
});
