import { json, jsonText } from '../../lib/http/responses.ts';
import { ADMIN_OR_AGENT, route } from '../../lib/http/route.ts';
import { z } from 'zod';
import { SiteRecord } from '../../lib/state/schemas.ts';

// GET /api/sites — newest first; admins get the cached serialization, agents their allowedSites.
export default route({
  method: 'GET',
  path: '/api/sites',
  access: { roles: ADMIN_OR_AGENT, capability: 'sites:read', gate: 'management' },
  response: { schema: z.object({ sites: z.array(SiteRecord) }) },
  handle: ({ identity, services }) =>
    identity.role === 'agent' ? json({ sites: services.sites.listFor(identity.allowedSites) }) : jsonText(services.sites.listJson()),
});
