import { json } from '../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { PluginInstall } from '../../lib/plugins/schema.ts';

// POST /api/plugins/install — npm install, manifest checked (400 and rolled back when bad); 201 {ok, plugin}, disabled.
export default route<Record<string, never>, Record<string, never>, PluginInstall>({
  method: 'POST',
  path: '/api/plugins/install',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  body: PluginInstall,
  async handle({ body, services }) {
    return json({ ok: true, plugin: await services.plugins.install(body.spec) }, 201);
  },
});
