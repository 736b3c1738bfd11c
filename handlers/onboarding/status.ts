import { json } from '../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../lib/http/route.ts';

// GET /api/onboarding/status — outside the onboarding gate: answers before and after COMPLETED.
export default route({
  method: 'GET',
  path: '/api/onboarding/status',
  access: { roles: ADMIN_ONLY, gate: 'open' },
  handle({ services }) {
    return json(services.onboarding.state());
  },
});
