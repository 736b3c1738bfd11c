import { z } from 'zod';
import type { AuditCursor } from './audit-log.ts';
import { AuditEntry } from './entry.ts';

// GET /api/audit answers the log's lines as written, and where the next page starts.
export const AuditList = z.object({
  entries: z.array(AuditEntry),
  next: z.string().nullable().describe('Pass as `before` for the older entries; null when there are none'),
});

/** `<ISO time>~<count>`: the oldest time a page gave and how many entries of that time it has given. */
const CURSOR = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?Z)~(\d{1,7})$/;

export const formatAuditCursor = (cursor: AuditCursor): string => `${cursor.time}~${cursor.seen}`;

export function parseAuditCursor(text: string, ctx: z.RefinementCtx): AuditCursor {
  const match = CURSOR.exec(text);
  if (!match) {
    ctx.addIssue({ code: 'custom', message: "Expected a page's `next` value" });
    return z.NEVER;
  }
  return { time: match[1]!, seen: Number(match[2]) };
}
