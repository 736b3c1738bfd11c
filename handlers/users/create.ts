import { json } from '../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { UserCreate } from '../../lib/users/schema.ts';

// POST /api/users — bcrypt (cost 12, off the main thread), database write, portal restart; 201 {ok, user}.
export default route<Record<string, never>, Record<string, never>, UserCreate>({
  method: 'POST',
  path: '/api/users',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  body: UserCreate,
  async handle({ body, services }) {
    return json({ ok: true, user: await services.users.create(body) }, 201);
  },
});
