import { json } from '../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { PluginNameParams } from '../../lib/plugins/schema.ts';

// POST /api/plugins/:name/disable — unmounts its routes: 404 from the next request; 200 {ok, name, status}.
export default route<PluginNameParams>({
  method: 'POST',
  path: '/api/plugins/:name/disable',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  params: PluginNameParams,
  async handle({ params, services }) {
    const { name, status } = await services.plugins.disable(params.name);
    return json({ ok: true, name, status });
  },
});
