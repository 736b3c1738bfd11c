import { json } from '../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { PluginNameParams } from '../../lib/plugins/schema.ts';

// POST /api/plugins/:name/enable — imports the server module and mounts its routes under /api/<name>/; 200 {ok, name, status}.
export default route<PluginNameParams>({
  method: 'POST',
  path: '/api/plugins/:name/enable',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  params: PluginNameParams,
  async handle({ params, services }) {
    const { name, status } = await services.plugins.enable(params.name);
    return json({ ok: true, name, status });
  },
});
