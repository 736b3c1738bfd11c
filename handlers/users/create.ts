import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { UserCreate } from '../../lib/users/schema.ts';
import { PublicUserShape } from '../../lib/users/schema.ts';
import { okWith } from '../../lib/http/response-shapes.ts';

// POST /api/users — bcrypt (cost 12, off the main thread), database write, portal restart; 201 {ok, user}.
export default route({
  method: 'POST',
  path: '/api/users',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 409: 'User already exists' },
  response: { status: 201, schema: okWith({ user: PublicUserShape }) },
  body: UserCreate,
  async handle({ body, services }) {
    return { ok: true, user: await services.users.create(body) };
  },
});
