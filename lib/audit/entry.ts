/** Who did it: the caller's certificate, or the panel itself for background work. */
export interface AuditActor {
  role: 'admin' | 'agent' | 'anonymous' | 'system';
  label: string | null;
  serial: string | null;
}

/**
 * One line of the audit log. A request gives method, route pattern and status; a domain event
 * (provisioning, registry change, plugin install) gives `event` and `outcome`. Never a body,
 * a raw URL or a secret: `target` is a record's id, redacted when the path names a token.
 */
export interface AuditEntry {
  time: string;
  actor: AuditActor;
  method?: string;
  route?: string;
  event?: string;
  target: string | null;
  status?: number;
  outcome?: string;
}

export type AuditRecord = Omit<AuditEntry, 'time' | 'actor'> & { actor?: AuditActor };

/** What domain services (provisioning, plugins) are handed to report what they did. */
export interface AuditSink {
  /** Accepted at once; on disk with the next group commit. */
  record(entry: AuditRecord): void;
}

export const SYSTEM_ACTOR: AuditActor = { role: 'system', label: null, serial: null };
