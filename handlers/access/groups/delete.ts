import { actorOf } from '../../../lib/audit/request-audit.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { Ok } from '../../../lib/http/response-shapes.ts';
import { GroupNameParams } from '../../../lib/access/schema.ts';

// DELETE /api/access/groups/:name — off every user and every rule (a restriction stays one).
export default route({
  method: 'DELETE',
  path: '/api/access/groups/:name',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 400: 'The admin group cannot be deleted', 404: 'Group not found' },
  response: { schema: Ok },
  params: GroupNameParams,
  async handle({ params, services, identity }) {
    await services.access.deleteGroup(params.name, actorOf(identity));
    return { ok: true };
  },
});
