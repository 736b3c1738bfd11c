import { ADMIN_OR_AGENT, route } from '../../../../lib/http/route.ts';
import { PushAgentStatus } from '../../../../lib/plugins/response-shapes.ts';

const ANSWER = { schema: PushAgentStatus };

// GET /api/plugins/push-install/agent-status — for the calling agent: {label, enabled, expiresAt, policy, sessions}
// and Portlama's pushInstallEnabled, pushInstallEnabledUntil, pushInstallPolicy (the policy's id).
export default route({
  method: 'GET',
  path: '/api/plugins/push-install/agent-status',
  access: { roles: ADMIN_OR_AGENT, gate: 'management', needsLabel: true },
  response: ANSWER,
  handle: ({ identity, services }) => services.pushInstall.agentStatus(identity.label),
});
