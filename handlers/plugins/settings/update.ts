import { actorOf } from '../../../lib/audit/request-audit.ts';
import { okWith } from '../../../lib/http/response-shapes.ts';
import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { PluginSettings } from '../../../lib/plugins/scopes.ts';

const ANSWER = { schema: okWith({ settings: PluginSettings }) };

// PATCH /api/plugins/settings — {allowedScopes} (the whole list, at most 100 npm scopes) -> {ok, settings};
// the next install is checked against it, installed plugins stay. The audit entry names the new list.
export default route({
  method: 'PATCH',
  path: '/api/plugins/settings',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  response: ANSWER,
  body: PluginSettings,
  async handle({ body, identity, services }) {
    const settings = await services.plugins.updateSettings(body);
    services.audit.record({ event: 'plugin.scopes-changed', target: null, outcome: settings.allowedScopes.join(' ') || '(none)', actor: actorOf(identity) });
    return { ok: true, settings };
  },
});
