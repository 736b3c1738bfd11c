// journalctl -o short-iso lines: `2026-11-21T12:00:00+0000 host nginx[812]: message`.
import type { LogLine } from '../types.ts';

const LINE = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?) (\S+) ([^:]+?): ?(.*)$/;

/**
 * The line as {timestamp (ISO 8601 UTC), message}; journal banners like `-- No entries --` give
 * null. A line without a readable stamp (a continuation) is stamped `now`, so every message
 * carries an ISO timestamp.
 */
export function parseJournalLine(line: string, now: () => number): LogLine | null {
  const trimmed = line.replace(/\r$/, '');
  if (trimmed === '' || trimmed.startsWith('-- ')) return null;
  const m = LINE.exec(trimmed);
  const stamp = m ? isoUtc(m[1]!) : null;
  if (!m || !stamp) return { timestamp: new Date(now()).toISOString(), message: trimmed };
  return { timestamp: stamp, message: m[4]! };
}

function isoUtc(stamp: string): string | null {
  const normalized = stamp.replace(',', '.').replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  const d = new Date(normalized);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}
