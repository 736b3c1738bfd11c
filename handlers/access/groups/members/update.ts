import { actorOf } from '../../../../lib/audit/request-audit.ts';
import { ADMIN_ONLY, route } from '../../../../lib/http/route.ts';
import { Ok } from '../../../../lib/http/response-shapes.ts';
import { GroupMembers, GroupNameParams } from '../../../../lib/access/schema.ts';

// PUT /api/access/groups/:name/members — exactly these users carry the group afterwards.
export default route({
  method: 'PUT',
  path: '/api/access/groups/:name/members',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 400: "Unknown user (details.users names them)" },
  response: { schema: Ok },
  params: GroupNameParams,
  body: GroupMembers,
  async handle({ params, body, services, identity }) {
    await services.access.setMembers(params.name, body.users, actorOf(identity));
    return { ok: true };
  },
});
