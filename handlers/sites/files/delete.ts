import { ADMIN_OR_AGENT, route } from '../../../lib/http/route.ts';
import { FileDelete, SiteIdParams } from '../../../lib/sites/schema.ts';
import { siteViewer } from '../../../lib/sites/viewer.ts';
import { Ok } from '../../../lib/http/response-shapes.ts';

// DELETE /api/sites/:id/files {path} — a file, or a folder with everything in it.
export default route({
  method: 'DELETE',
  path: '/api/sites/:id/files',
  access: { roles: ADMIN_OR_AGENT, capability: 'sites:write', gate: 'management' },
  answers: { 400: 'Path traversal, invalid path or missing file', 403: 'You do not have access to this site', 404: 'Site not found' },
  response: { schema: Ok },
  params: SiteIdParams,
  body: FileDelete,
  async handle({ params, body, identity, services }) {
    const site = services.sites.visibleSite(params.id, siteViewer(identity));
    await services.sites.removeFile(site, body.path);
    return { ok: true };
  },
});
