import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { SiteIdParams, SitePatch } from '../../lib/sites/schema.ts';
import { z } from 'zod';
import { SiteRecord } from '../../lib/state/schemas.ts';
import { okWith } from '../../lib/http/response-shapes.ts';

const ANSWER = { schema: okWith({ site: SiteRecord, message: z.string().optional() }) };

// PATCH /api/sites/:id — spaMode, autheliaProtected, allowedUsers; `message` when nothing changed.
export default route({
  method: 'PATCH',
  path: '/api/sites/:id',
  access: { roles: ADMIN_ONLY, gate: 'management' },
  answers: { 400: "Unknown user '<name>' (or Unknown users '<a>', '<b>'): every allowed user must be a portal user; details.users names them", 404: 'Site not found' },
  response: ANSWER,
  params: SiteIdParams,
  body: SitePatch,
  async handle({ params, body, services }) {
    return { ok: true, ...(await services.sites.update(params.id, body)) };
  },
});
