import { ADMIN_OR_AGENT, route } from '../../../lib/http/route.ts';
import { FilesQuery, SiteIdParams } from '../../../lib/sites/schema.ts';
import { siteViewer } from '../../../lib/sites/viewer.ts';
import { z } from 'zod';

// GET /api/sites/:id/files?path= — one directory; agents need sites:read and the site in allowedSites.
export default route({
  method: 'GET',
  path: '/api/sites/:id/files',
  access: { roles: ADMIN_OR_AGENT, capability: 'sites:read', gate: 'management' },
  answers: { 400: 'Invalid path', 403: 'You do not have access to this site', 404: 'Site not found' },
  response: { schema: z.object({ files: z.array(z.object({ name: z.string(), type: z.enum(['file', 'directory']), size: z.number(), modifiedAt: z.string(), relativePath: z.string() })), path: z.string() }) },
  params: SiteIdParams,
  query: FilesQuery,
  async handle({ params, query, identity, services }) {
    const site = services.sites.visibleSite(params.id, siteViewer(identity));
    return { files: await services.sites.listFiles(site, query.path), path: query.path };
  },
});
