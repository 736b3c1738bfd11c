import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { PluginNameParams } from '../../lib/plugins/schema.ts';
import { okWith } from '../../lib/http/response-shapes.ts';
import { pluginStatusFields } from '../../lib/plugins/response-shapes.ts';

const ANSWER = { schema: okWith(pluginStatusFields) };

// POST /api/plugins/:name/enable — imports the server module and mounts its routes under /api/<name>/; 200 {ok, name, status}.
export default route({
  method: 'POST',
  path: '/api/plugins/:name/enable',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 400: "Plugin '<name>' failed to load, or cannot be mounted", 404: "Plugin '<name>' not found" },
  response: ANSWER,
  params: PluginNameParams,
  async handle({ params, services }) {
    const { name, status } = await services.plugins.enable(params.name);
    return { ok: true, name, status };
  },
});
