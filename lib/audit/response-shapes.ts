import { z } from 'zod';
import { AuditEntry } from './entry.ts';

// GET /api/audit answers the log's lines as written.
export const AuditList = z.object({ entries: z.array(AuditEntry) });
