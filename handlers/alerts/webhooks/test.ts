import { DeliveryShape, WebhookIdParams } from '../../../lib/alerts/schema.ts';
import { okWith } from '../../../lib/http/response-shapes.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';

// POST /api/alerts/webhooks/:id/test — 200 {ok, delivery}: a `test` alert, answered once its first
// attempt has ended: `delivered` with the receiver's status code, or `pending` with why it failed and
// when it is tried again (retries are not waited for), or `dropped`.
export default route({
  method: 'POST',
  path: '/api/alerts/webhooks/:id/test',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 404: 'Webhook not found' },
  response: { schema: okWith({ delivery: DeliveryShape }) },
  params: WebhookIdParams,
  handle: async ({ params, services }) => ({ ok: true, delivery: await services.alerts.test(params.id) }),
});
