import { PublicWebhook, URL_REFUSED, WebhookIdParams, WebhookUpdate } from '../../../lib/alerts/schema.ts';
import { okWith } from '../../../lib/http/response-shapes.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';

// PATCH /api/alerts/webhooks/:id — {ok, webhook}; any of url, secret, events, tunnelDownMinutes, enabled; a
// refused url is 400 like POST's.
export default route({
  method: 'PATCH',
  path: '/api/alerts/webhooks/:id',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 400: URL_REFUSED, 404: 'Webhook not found' },
  response: { schema: okWith({ webhook: PublicWebhook }) },
  params: WebhookIdParams,
  body: WebhookUpdate,
  async handle({ params, body, services }) {
    return { ok: true, webhook: await services.alerts.update(params.id, body) };
  },
});
