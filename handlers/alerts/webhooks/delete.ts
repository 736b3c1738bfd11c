import { WebhookIdParams } from '../../../lib/alerts/schema.ts';
import { Ok } from '../../../lib/http/response-shapes.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';

// DELETE /api/alerts/webhooks/:id — {ok}; its alerts still waiting are dropped.
export default route({
  method: 'DELETE',
  path: '/api/alerts/webhooks/:id',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 404: 'Webhook not found' },
  response: { schema: Ok },
  params: WebhookIdParams,
  async handle({ params, services }) {
    await services.alerts.delete(params.id);
    return { ok: true };
  },
});
