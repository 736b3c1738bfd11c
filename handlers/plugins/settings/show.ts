import { ADMIN_ONLY, route } from '../../../lib/http/route.ts';
import { PluginSettings } from '../../../lib/plugins/scopes.ts';

const ANSWER = { schema: PluginSettings };

// GET /api/plugins/settings — {allowedScopes}: the npm scopes whose registry packages may be installed.
export default route({
  method: 'GET',
  path: '/api/plugins/settings',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  response: ANSWER,
  handle: ({ services }) => services.plugins.settings(),
});
