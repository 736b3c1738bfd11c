import { jsonBytes } from '../../lib/json-bytes.ts';
import { ADMIN_OR_AGENT, route } from '../../lib/http/route.ts';
import { z } from 'zod';
import { SiteRecord } from '../../lib/state/schemas.ts';

// GET /api/sites — newest first; admins get the cached serialization, agents their allowedSites.
export default route({
  method: 'GET',
  path: '/api/sites',
  access: { roles: ADMIN_OR_AGENT, capability: 'sites:read', gate: 'management' },
  response: { kind: 'bytes', schema: z.object({ sites: z.array(SiteRecord) }) },
  handle: ({ identity, services }) =>
    identity.role === 'agent' ? jsonBytes({ sites: services.sites.listFor(identity.allowedSites) }) : services.sites.listJson(),
});
