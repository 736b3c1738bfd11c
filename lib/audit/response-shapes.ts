import { z } from 'zod';

// GET /api/audit answers the log's lines as written (lib/audit/entry.ts).

const AuditActor = z.object({ role: z.enum(['admin', 'agent', 'anonymous', 'system']), label: z.string().nullable(), serial: z.string().nullable() });

export const AuditEntry = z.object({
  time: z.string(),
  actor: AuditActor,
  method: z.string().optional(),
  route: z.string().optional(),
  event: z.string().optional(),
  target: z.string().nullable(),
  status: z.number().optional(),
  outcome: z.string().optional(),
});

export const AuditList = z.object({ entries: z.array(AuditEntry) });
