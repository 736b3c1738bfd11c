import { jsonText } from '../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../lib/http/route.ts';

// GET /api/users — {users} sorted by username; the serialization is reused until the database changes.
export default route({
  method: 'GET',
  path: '/api/users',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  handle: async ({ services }) => jsonText(await services.users.listJson()),
});
