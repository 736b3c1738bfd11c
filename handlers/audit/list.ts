import { z } from 'zod';
import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { AuditList, formatAuditCursor, parseAuditCursor } from '../../lib/audit/response-shapes.ts';

const ANSWER = { schema: AuditList };

const AuditQuery = z
  .object({
    since: z.iso.datetime().max(64).optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
    actor: z.string().min(1).max(128).optional(),
    before: z.string().max(80).transform(parseAuditCursor).optional(),
  })
  .strict();

// GET /api/audit — {entries, next}, newest first; `actor` is an agent label, a role or a serial;
// `before` takes a page's `next` and gives the page after it.
export default route({
  method: 'GET',
  path: '/api/audit',
  access: { roles: ADMIN_ONLY, gate: 'open' },
  response: ANSWER,
  query: AuditQuery,
  handle: async ({ services, query }) => {
    const page = await services.audit.page(query);
    return { entries: page.entries, next: page.next && formatAuditCursor(page.next) };
  },
});
