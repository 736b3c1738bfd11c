import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { GroupsAnswer } from '../../../lib/access/response-shapes.ts';

// GET /api/access/groups — every group (the users' `groups` and the rules'), members and the apps naming it.
export default route({
  method: 'GET',
  path: '/api/access/groups',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  response: { schema: GroupsAnswer },
  async handle({ services }) {
    return { groups: await services.access.groups() };
  },
});
