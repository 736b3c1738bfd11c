import { json } from '../../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';

// GET /api/plugins/push-install/policies — {policies} by name.
export default route({
  method: 'GET',
  path: '/api/plugins/push-install/policies',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  handle: ({ services }) => json({ policies: services.pushInstall.policies() }),
});
