import { json } from '../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { PluginNameParams } from '../../lib/plugins/schema.ts';

// GET /api/plugins/:name — the plugin record; 404 for an unknown name.
export default route<PluginNameParams>({
  method: 'GET',
  path: '/api/plugins/:name',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  params: PluginNameParams,
  handle: ({ params, services }) => json(services.plugins.get(params.name)),
});
