import type { AuditEntry } from './entry.ts';

// Reading the audit log: a page of entries, newest first, with the filters and the cursor of the
// page after it. The log itself (lib/audit/audit-log.ts) only writes, and hands its lines over.

export interface AuditQuery {
  /** ISO time: entries at or after it. */
  since?: string;
  limit: number;
  /** An agent label, a role (`admin`, `system`) or a certificate serial. */
  actor?: string;
  /** Where the previous page ended (its `next`): entries older than that one. */
  before?: AuditCursor;
}

/**
 * The oldest entry a page gave: its time, and how many of the entries given so far (that match
 * the filters) carry that very time, since entries of one millisecond share it.
 */
export interface AuditCursor {
  time: string;
  seen: number;
}

export interface AuditPage {
  entries: AuditEntry[];
  /** Where the next (older) page starts; null once the filtered log is exhausted. */
  next: AuditCursor | null;
}

/** Takes entries from `chunks` (lines, oldest first within a chunk; the newest chunk first) until the page is full or past `since`. */
export async function readAuditPage(query: AuditQuery, chunks: AsyncIterable<readonly string[]>): Promise<AuditPage> {
  const found: AuditEntry[] = [];
  const before = query.before;
  let skipAtBoundary = before?.seen ?? 0;
  // true once nothing older can match: past `since`, or the page is full
  const take = (lines: readonly string[]): boolean => {
    for (let i = lines.length - 1; i >= 0; i--) {
      const entry = parseLine(lines[i]!);
      if (!entry) continue;
      if (query.since && entry.time < query.since) return true;
      if (query.actor && !actedAs(entry, query.actor)) continue;
      if (before && entry.time > before.time) continue;
      if (before && entry.time === before.time && skipAtBoundary > 0) {
        skipAtBoundary--;
        continue;
      }
      found.push(entry);
      if (found.length >= query.limit) return true;
    }
    return false;
  };
  for await (const lines of chunks) if (take(lines)) break;
  return { entries: found, next: found.length < query.limit ? null : nextCursor(found, before) };
}

function parseLine(line: string): AuditEntry | null {
  if (!line) return null;
  try {
    return JSON.parse(line) as AuditEntry;
  } catch {
    return null; // a line a crash cut short
  }
}

function actedAs(entry: AuditEntry, actor: string): boolean {
  return entry.actor.label === actor || entry.actor.role === actor || entry.actor.serial === actor;
}

function nextCursor(page: readonly AuditEntry[], before: AuditCursor | undefined): AuditCursor {
  const time = page[page.length - 1]!.time;
  let seen = 0;
  for (let i = page.length - 1; i >= 0 && page[i]!.time === time; i--) seen++;
  // a page made only of entries of the boundary's millisecond adds to what was seen of it before
  if (before?.time === time) seen += before.seen;
  return { time, seen };
}
