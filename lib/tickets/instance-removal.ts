import type { TicketInstanceRecord } from '../state/schemas.ts';
import { removeWhere } from './collection-ops.ts';
import type { TicketCollections } from './indexes.ts';
import { parseInstanceScope } from './instance-scope.ts';

/**
 * Removes instances and everything hanging off them (assignments, tickets, sessions).
 * The dependents go only once the instances' removal is on disk: if that write fails the
 * instances come back, and their assignments must still be there. Readers meanwhile skip
 * tickets and sessions whose instance is gone, and a crash in between is what the periodic
 * orphan cleanup removes.
 */
export async function removeInstancesWhere(store: TicketCollections, doomed: (instance: TicketInstanceRecord) => boolean): Promise<number> {
  const count = await removeWhere(store.ticketInstances, doomed);
  await removeOrphans(store);
  return count;
}

/** Assignments, tickets and sessions whose instance is gone (also what a crash mid-removal leaves behind). */
export async function removeOrphans(store: TicketCollections): Promise<void> {
  const live = new Set(store.ticketInstances.value.map((instance) => instance.instanceId));
  await Promise.all([
    removeWhere(store.ticketAssignments, (assignment) => !live.has(parseInstanceScope(assignment.instanceScope).instanceId)),
    removeWhere(store.tickets, (ticket) => !live.has(ticket.instanceId)),
    removeWhere(store.ticketSessions, (session) => !live.has(session.instanceId)),
  ]);
}
