import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { UsernameParams } from '../../lib/users/schema.ts';
import { Ok } from '../../lib/http/response-shapes.ts';

// DELETE /api/users/:username — never the last user; 200 {ok}.
export default route({
  method: 'DELETE',
  path: '/api/users/:username',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 400: 'Cannot delete the last user', 404: 'User not found'},
  response: { schema: Ok },
  params: UsernameParams,
  async handle({ params, services }) {
    await services.users.delete(params.username);
    return { ok: true };
  },
});
