import { DeliveryShape, WebhookIdParams } from '../../lib/alerts/schema.ts';
import { okWith } from '../../lib/http/response-shapes.ts';
import { json } from '../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../lib/http/route.ts';

// POST /api/alerts/webhooks/:id/test — 202 {ok, delivery}: a `test` alert is queued; the delivery
// log (GET /api/alerts/deliveries) shows how it went.
export default route({
  method: 'POST',
  path: '/api/alerts/webhooks/:id/test',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 404: 'Webhook not found' },
  response: { status: 202, schema: okWith({ delivery: DeliveryShape }) },
  params: WebhookIdParams,
  handle: ({ params, services }) => json({ ok: true, delivery: services.alerts.test(params.id) }, 202),
});
