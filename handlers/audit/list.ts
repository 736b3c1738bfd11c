import { z } from 'zod';
import { documented } from '../../lib/http/responses.ts';
import { ADMIN_ONLY, route } from '../../lib/http/route.ts';
import { AuditList } from '../../lib/audit/response-shapes.ts';

const ANSWER = { schema: AuditList };

const AuditQuery = z
  .object({
    since: z.iso.datetime().max(64).optional(),
    limit: z.coerce.number().int().min(1).max(1000).default(100),
    actor: z.string().min(1).max(128).optional(),
  })
  .strict();

// GET /api/audit — {entries}, newest first; `actor` is an agent label, a role or a serial.
export default route({
  method: 'GET',
  path: '/api/audit',
  access: { roles: ADMIN_ONLY, gate: 'open' },
  response: ANSWER,
  query: AuditQuery,
  handle: async ({ services, query }) => documented(ANSWER, { entries: await services.audit.read(query) }),
});
