import { json } from '../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { PluginNameParams } from '../../lib/plugins/schema.ts';

// DELETE /api/plugins/:name — unmounted when enabled, record and files removed; 200 {ok, name}.
export default route<PluginNameParams>({
  method: 'DELETE',
  path: '/api/plugins/:name',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  params: PluginNameParams,
  async handle({ params, services }) {
    await services.plugins.delete(params.name);
    return json({ ok: true, name: params.name });
  },
});
