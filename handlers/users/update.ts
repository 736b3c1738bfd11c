import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { UsernameParams, UserUpdate } from '../../lib/users/schema.ts';
import { PublicUserShape } from '../../lib/users/schema.ts';
import { okWith } from '../../lib/http/response-shapes.ts';

// PUT /api/users/:username — omitted fields stay, groups replaces the list; 200 {ok, user}.
export default route({
  method: 'PUT',
  path: '/api/users/:username',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 404: 'User not found' },
  response: { schema: okWith({ user: PublicUserShape }) },
  params: UsernameParams,
  body: UserUpdate,
  async handle({ params, body, services }) {
    return { ok: true, user: await services.users.update(params.username, body) };
  },
});
