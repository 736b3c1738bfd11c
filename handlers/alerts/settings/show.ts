import { AlertSettings } from '../../../lib/alerts/schema.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';

const ANSWER = { schema: AlertSettings };

// GET /api/alerts/settings — {allowPrivateTargets}: whether webhooks may point at loopback, private
// networks and inward names (off unless an admin turned it on).
export default route({
  method: 'GET',
  path: '/api/alerts/settings',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  response: ANSWER,
  handle: ({ services }) => services.alerts.settings(),
});
