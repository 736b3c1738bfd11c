import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { PluginList } from '../../lib/plugins/response-shapes.ts';

// GET /api/plugins — {plugins}, by name, from the cached serialization.
export default route({
  method: 'GET',
  path: '/api/plugins',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  response: { kind: 'bytes', schema: PluginList },
  handle: ({ services }) => services.plugins.listJson(),
});
