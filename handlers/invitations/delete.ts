import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { InvitationIdParams } from '../../lib/invitations/schema.ts';
import { Ok } from '../../lib/http/response-shapes.ts';

// DELETE /api/invitations/:id — revokes a pending invitation or forgets a used one; 200 {ok}.
export default route({
  method: 'DELETE',
  path: '/api/invitations/:id',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 404: 'Invitation not found' },
  response: { schema: Ok },
  params: InvitationIdParams,
  async handle({ params, services }) {
    await services.invitations.delete(params.id);
    return { ok: true };
  },
});
