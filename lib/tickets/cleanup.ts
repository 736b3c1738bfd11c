import type { Clock } from '../clock.ts';
import { removeWhere } from './collection-ops.ts';
import type { TicketIndexes } from './indexes.ts';
import { removeOrphans } from './instance-removal.ts';
import { DEAD_SESSION_REMOVED_AFTER_MS, TICKET_REMOVED_AFTER_MS } from './limits.ts';

/** The periodic cleanup: tickets older than an hour, sessions dead for a day, and crash leftovers. */
export async function removeExpiredRecords(indexes: TicketIndexes, clock: Clock): Promise<void> {
  const { store } = indexes;
  const now = clock.now();
  const olderThan = (timestamp: string | null, ms: number) => timestamp !== null && now - Date.parse(timestamp) >= ms;
  await Promise.all([
    removeWhere(store.tickets, (ticket) => olderThan(ticket.createdAt, TICKET_REMOVED_AFTER_MS)),
    removeWhere(store.ticketSessions, (session) => session.status === 'dead' && olderThan(session.endedAt, DEAD_SESSION_REMOVED_AFTER_MS)),
    removeOrphans(indexes),
  ]);
}
