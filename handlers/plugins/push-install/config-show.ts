import { json } from '../../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';

// GET /api/plugins/push-install/config — {enabled, defaultPolicyId}.
export default route({
  method: 'GET',
  path: '/api/plugins/push-install/config',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  handle: ({ services }) => json(services.pushInstall.config),
});
