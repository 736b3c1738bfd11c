import { ADMIN_ONLY, route } from '../../../../lib/http/route.ts';
import { PushConfig } from '../../../../lib/plugins/response-shapes.ts';

const ANSWER = { schema: PushConfig };

// GET /api/plugins/push-install/config — {enabled, defaultPolicy, defaultPolicyId, policies}.
export default route({
  method: 'GET',
  path: '/api/plugins/push-install/config',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  response: ANSWER,
  handle: ({ services }) => services.pushInstall.config,
});
