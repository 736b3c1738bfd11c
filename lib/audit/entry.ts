import { z } from 'zod';

/** Who did it: the caller's certificate, or the panel itself for background work. */
export const AuditActor = z.object({ role: z.enum(['admin', 'agent', 'anonymous', 'system']), label: z.string().nullable(), serial: z.string().nullable() });
export type AuditActor = z.infer<typeof AuditActor>;

/**
 * One line of the audit log, and of the GET /api/audit answer. A request gives method, route
 * pattern and status; a domain event (provisioning, registry change, plugin install) gives `event`
 * and `outcome`. Never a body, a raw URL or a secret: `target` is a record's id, redacted when the
 * path names a token.
 */
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
export type AuditEntry = z.infer<typeof AuditEntry>;

export type AuditRecord = Omit<AuditEntry, 'time' | 'actor'> & { actor?: AuditActor };

/** What domain services (provisioning, plugins) are handed to report what they did. */
export interface AuditSink {
  /** Accepted at once; on disk with the next group commit. */
  record(entry: AuditRecord): void;
}

export const SYSTEM_ACTOR: AuditActor = { role: 'system', label: null, serial: null };
