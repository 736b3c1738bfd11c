import { actorOf } from '../../../lib/audit/request-audit.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { Ok } from '../../../lib/http/response-shapes.ts';
import { GroupNameParams, GroupRename } from '../../../lib/access/schema.ts';

// PATCH /api/access/groups/:name — rename, in every user and every rule, all or nothing.
export default route({
  method: 'PATCH',
  path: '/api/access/groups/:name',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 400: 'The admin group cannot be renamed', 404: 'Group not found' },
  response: { schema: Ok },
  params: GroupNameParams,
  body: GroupRename,
  async handle({ params, body, services, identity }) {
    await services.access.renameGroup(params.name, body.name, actorOf(identity));
    return { ok: true };
  },
});
