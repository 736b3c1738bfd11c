import { json } from '../../../lib/http/responses.ts';
import { ADMIN_OR_AGENT, route } from '../../../lib/http/route.ts';

// GET /api/plugins/push-install/agent-status — for the calling agent: {label, enabled, expiresAt, policy, sessions}.
export default route({
  method: 'GET',
  path: '/api/plugins/push-install/agent-status',
  access: { roles: ADMIN_OR_AGENT, gate: 'management', needsLabel: true },
  handle: ({ identity, services }) => json(services.pushInstall.agentStatus(identity.label)),
});
