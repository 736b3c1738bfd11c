import { z } from 'zod';
import { PublicWebhook } from '../../../lib/alerts/schema.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';

const ANSWER = { schema: z.object({ webhooks: z.array(PublicWebhook) }) };

// GET /api/alerts/webhooks — {webhooks} in the order made; never a secret.
export default route({
  method: 'GET',
  path: '/api/alerts/webhooks',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  response: ANSWER,
  handle: ({ services }) => ({ webhooks: services.alerts.list() }),
});
