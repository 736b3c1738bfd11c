import { AppError } from '../../../lib/errors.ts';
import { LABEL_REQUIRED } from '../../../lib/errors.ts';
import { ADMIN_OR_AGENT, route } from '../../../lib/http/route.ts';
import { InstanceIdParams } from '../../../lib/tickets/schema.ts';
import { Ok } from '../../../lib/http/response-shapes.ts';

// POST /api/tickets/instances/:instanceId/heartbeat — admin or owner. Admins have no label and may
// still heartbeat, so the label rule applies to agent certificates only (not `needsLabel`).
export default route({
  method: 'POST',
  path: '/api/tickets/instances/:instanceId/heartbeat',
  access: { roles: ADMIN_OR_AGENT, gate: 'management' },
  answers: { 400: 'Agent certificate label required', 404: 'Instance not found' },
  response: { schema: Ok },
  params: InstanceIdParams,
  async handle({ params, identity, services }) {
    if (identity.role === 'agent' && !identity.label) throw new AppError(400, LABEL_REQUIRED);
    await services.ticketing.instances.heartbeat(identity, params.instanceId);
    return { ok: true };
  },
});
