import { z } from 'zod';
import { PublicWebhook, URL_REFUSED, WebhookCreate } from '../../../lib/alerts/schema.ts';
import { okWith } from '../../../lib/http/response-shapes.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';

// POST /api/alerts/webhooks — 201 {ok, webhook, secret}; the secret (given or made) is shown only here. A url
// pointing inward is 400 Validation failed, its issue saying why (lib/alerts/target.ts).
export default route({
  method: 'POST',
  path: '/api/alerts/webhooks',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 400: URL_REFUSED, 409: 'Too many webhooks' },
  response: { status: 201, schema: okWith({ webhook: PublicWebhook, secret: z.string() }) },
  body: WebhookCreate,
  async handle({ body, services }) {
    return { ok: true, ...(await services.alerts.create(body)) };
  },
});
