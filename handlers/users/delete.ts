import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { UsernameParams } from '../../lib/users/schema.ts';
import { Ok } from '../../lib/http/response-shapes.ts';
import { actorOf } from '../../lib/audit/request-audit.ts';

// DELETE /api/users/:username — never the last user; taken off every app's access; 200 {ok}.
export default route({
  method: 'DELETE',
  path: '/api/users/:username',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 400: 'Cannot delete the last user', 404: 'User not found'},
  response: { schema: Ok },
  params: UsernameParams,
  async handle({ params, services, identity }) {
    await services.users.delete(params.username);
    // the user goes from every app's access too (sites' allowedUsers keep the name: docs/decisions.md)
    await services.access.forgetUser(params.username, actorOf(identity));
    return { ok: true };
  },
});
