import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { z } from 'zod';
import { PublicUserShape } from '../../lib/users/schema.ts';

// GET /api/users — {users} sorted by username; the serialization is reused until the database changes.
export default route({
  method: 'GET',
  path: '/api/users',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  response: { kind: 'bytes', schema: z.object({ users: z.array(PublicUserShape) }) },
  handle: async ({ services }) => await services.users.listJson(),
});
