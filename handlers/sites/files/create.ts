import { multipart } from '../../../lib/http/multipart.ts';
import { UPLOAD_FAILED, uploadMessages } from '../../../lib/upload-refusals.ts';
import { ADMIN_OR_AGENT, route } from '../../../lib/http/route.ts';
import { FilesQuery, SiteIdParams } from '../../../lib/sites/schema.ts';
import { siteViewer } from '../../../lib/sites/viewer.ts';
import { SITE_UPLOAD_LIMITS } from '../../../lib/upload-limits.ts';
import { badRequest } from '../../../lib/errors.ts';
import { z } from 'zod';
import { okWith } from '../../../lib/http/response-shapes.ts';

const ANSWER = { schema: okWith({ files: z.array(z.string()), warning: z.string().optional(), totalSize: z.number().optional() }) };

// POST /api/sites/:id/files?path= — multipart, one or more `file` parts streamed to disk (50 MB each,
// refused as soon as one passes it);
// over the site's size limit the files are kept and the answer adds `warning` and `totalSize`.
export default route({
  method: 'POST',
  path: '/api/sites/:id/files',
  access: { roles: ADMIN_OR_AGENT, capability: 'sites:write', gate: 'management' },
  answers: {
    400: `${UPLOAD_FAILED}... (path, file type, form; ${uploadMessages.fileTooLarge(SITE_UPLOAD_LIMITS)} as the file streams past it; ${uploadMessages.totalTooLarge(SITE_UPLOAD_LIMITS)}, also before any body byte when Content-Length is over what the limits allow; ${uploadMessages.tooManyFiles(SITE_UPLOAD_LIMITS)}: the connection is then closed after the answer)`,
    403: 'You do not have access to this site',
    404: 'Site not found',
  },
  response: ANSWER,
  params: SiteIdParams,
  query: FilesQuery,
  // the platform spec: every refusal of an upload is 400 `Upload failed: ...`
  body: multipart(SITE_UPLOAD_LIMITS, { refusalPrefix: UPLOAD_FAILED }),
  async handle({ params, query, body, identity, services }) {
    const site = services.sites.visibleSite(params.id, siteViewer(identity));
    const files = body.files.filter((f) => f.field === 'file');
    if (files.length === 0) throw badRequest(`${UPLOAD_FAILED}no 'file' part in the form`);
    return { ok: true, ...(await services.sites.uploadFiles(site, query.path, files)) };
  },
});
