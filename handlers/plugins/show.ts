import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { PluginNameParams } from '../../lib/plugins/schema.ts';
import { PluginRecord } from '../../lib/state/schemas.ts';

const ANSWER = { schema: PluginRecord };

// GET /api/plugins/:name — the plugin record; 404 for an unknown name.
export default route({
  method: 'GET',
  path: '/api/plugins/:name',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 404: "Plugin '<name>' not found" },
  response: ANSWER,
  params: PluginNameParams,
  handle: ({ params, services }) => services.plugins.get(params.name),
});
