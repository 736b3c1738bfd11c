import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { PluginInstall } from '../../lib/plugins/schema.ts';
import { okWith } from '../../lib/http/response-shapes.ts';
import { PluginRecord } from '../../lib/state/schemas.ts';

const ANSWER = { status: 201, schema: okWith({ plugin: PluginRecord }) };

// POST /api/plugins/install — {spec} or Portlama's {packageName}; npm install, manifest checked (400 and rolled back when bad); 201 {ok, plugin}, disabled.
export default route({
  method: 'POST',
  path: '/api/plugins/install',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 400: 'Plugin install failed, or an invalid plugin manifest', 409: "Plugin '<name>' is already installed" },
  response: ANSWER,
  body: PluginInstall,
  async handle({ body, identity, services }) {
    const plugin = await services.plugins.install(body.spec);
    services.audit.record({ event: 'plugin.installed', target: plugin.name, outcome: plugin.version, actor: { role: identity.role, label: identity.label, serial: identity.serial } });
    return { ok: true, plugin };
  },
});
