import { z } from 'zod';
import { ADMIN_ONLY, route } from '../../../../lib/http/route.ts';
import { PushGrantRecord } from '../../../../lib/state/schemas.ts';

// GET /api/plugins/push-install/grants — the windows open now, by agent label, each as enable answered it: {grants: [{label, policyId, enabledAt, expiresAt}]}.
export default route({
  method: 'GET',
  path: '/api/plugins/push-install/grants',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  response: { kind: 'bytes', schema: z.object({ grants: z.array(PushGrantRecord) }) },
  handle: ({ services }) => services.pushInstall.grantsJson(),
});
