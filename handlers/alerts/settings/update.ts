import { AlertSettings, AlertSettingsUpdate } from '../../../lib/alerts/schema.ts';
import { okWith } from '../../../lib/http/response-shapes.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';

const ANSWER = { schema: okWith({ settings: AlertSettings }) };

// PATCH /api/alerts/settings — {allowPrivateTargets} -> {ok, settings}; applies from the next delivery
// attempt on (webhooks already saved are checked then, not removed).
export default route({
  method: 'PATCH',
  path: '/api/alerts/settings',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  response: ANSWER,
  body: AlertSettingsUpdate,
  async handle({ body, services }) {
    return { ok: true, settings: await services.alerts.updateSettings(body) };
  },
});
