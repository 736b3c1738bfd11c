import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { UserReachParams } from '../../../lib/access/schema.ts';
import { ReachAnswer } from '../../../lib/access/response-shapes.ts';

// GET /api/access/users/:username — the apps this portal user may open, and through what.
export default route({
  method: 'GET',
  path: '/api/access/users/:username',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 404: 'User not found' },
  response: { schema: ReachAnswer },
  params: UserReachParams,
  async handle({ params, services }) {
    return services.access.reach(params.username);
  },
});
