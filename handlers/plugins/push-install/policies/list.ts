import { ADMIN_ONLY, route } from '../../../../lib/http/route.ts';
import { PushPolicyList } from '../../../../lib/plugins/response-shapes.ts';

const ANSWER = { schema: PushPolicyList };

// GET /api/plugins/push-install/policies — {policies} by name, the `default` policy always among them.
export default route({
  method: 'GET',
  path: '/api/plugins/push-install/policies',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  response: ANSWER,
  handle: ({ services }) => ({ policies: services.pushInstall.policies.list() }),
});
