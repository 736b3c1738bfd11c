import type { TicketInstanceRecord } from '../state/schemas.ts';
import { removeWhere } from './collection-ops.ts';
import type { TicketCollections } from './indexes.ts';
import { parseInstanceScope } from './instance-scope.ts';

/**
 * Removes instances and everything hanging off them (assignments, tickets, sessions).
 * The updates are issued back to back without an await, so no request sees a half-removed
 * instance in memory; each collection then reaches disk in its own group commit.
 */
export async function removeInstancesWhere(store: TicketCollections, doomed: (instance: TicketInstanceRecord) => boolean): Promise<number> {
  const removed = removeWhere(store.ticketInstances, doomed);
  const dependents = removeOrphans(store);
  const [count] = await Promise.all([removed, dependents]);
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
