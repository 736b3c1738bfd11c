import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { PluginNameParams } from '../../lib/plugins/schema.ts';
import { okWith } from '../../lib/http/response-shapes.ts';
import { pluginStatusFields } from '../../lib/plugins/response-shapes.ts';

const ANSWER = { schema: okWith(pluginStatusFields) };

// POST /api/plugins/:name/disable — unmounts its routes: 404 from the next request; 200 {ok, name, status}.
export default route({
  method: 'POST',
  path: '/api/plugins/:name/disable',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 404: "Plugin '<name>' not found" },
  response: ANSWER,
  params: PluginNameParams,
  async handle({ params, services }) {
    const { name, status } = await services.plugins.disable(params.name);
    return { ok: true, name, status };
  },
});
