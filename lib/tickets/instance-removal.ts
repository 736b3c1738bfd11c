import type { TicketInstanceRecord } from '../state/schemas.ts';
import { removeWhere } from './collection-ops.ts';
import type { TicketIndexes } from './indexes.ts';
import { parseInstanceScope } from './instance-scope.ts';

/**
 * Removes instances and everything hanging off them (assignments, tickets, sessions).
 * The dependents go only once the instances' removal is on disk: if that write fails the
 * instances come back, and their assignments must still be there. Readers meanwhile skip
 * tickets and sessions whose instance is gone, and a crash in between is what the periodic
 * orphan cleanup removes.
 */
export async function removeInstancesWhere(indexes: TicketIndexes, doomed: (instance: TicketInstanceRecord) => boolean): Promise<number> {
  const count = await removeWhere(indexes.store.ticketInstances, doomed);
  if (count > 0) await removeOrphans(indexes);
  return count;
}

/** Assignments, tickets and sessions whose instance is gone (also what a crash mid-removal leaves behind). */
export async function removeOrphans(indexes: TicketIndexes): Promise<void> {
  const live = indexes.instanceById();
  const { store } = indexes;
  await Promise.all([
    removeWhere(store.ticketAssignments, (assignment) => !live.has(parseInstanceScope(assignment.instanceScope).instanceId)),
    removeWhere(store.tickets, (ticket) => !live.has(ticket.instanceId)),
    removeWhere(store.ticketSessions, (session) => !live.has(session.instanceId)),
  ]);
}
