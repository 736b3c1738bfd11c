import { jsonText } from '../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../lib/http/route.ts';

// GET /api/openapi.json — the OpenAPI 3.1 description of every route served now, mounts included.
export default route({
  method: 'GET',
  path: '/api/openapi.json',
  access: { roles: ADMIN_ONLY, gate: 'open' },
  handle: ({ services }) => jsonText(services.apiDescription.json()),
});
