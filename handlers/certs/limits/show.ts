import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { LimitsAnswer } from '../../../lib/certs/limits/schema.ts';

// GET /api/certs/limits — the ACME limits in force and the panel's orders counted against them:
// {server, source, limits, counts: [{limit, key, count, max, windowSeconds, nextFreeAt}]}.
export default route({
  method: 'GET',
  path: '/api/certs/limits',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  response: { schema: LimitsAnswer },
  async handle({ services }) {
    return await services.certLimits.counts();
  },
});
