import type { TicketRecord, TicketScopeRecord, TicketSessionRecord } from '../state/schemas.ts';
import type { Store } from '../state/store.ts';
import { indexBy } from './collection-ops.ts';

export type TicketCollections = Pick<Store, 'ticketScopes' | 'ticketInstances' | 'ticketAssignments' | 'tickets' | 'ticketSessions'>;

/** A compound map key; NUL cannot appear in a certificate label or a capability name. */
export const pairKey = (a: string, b: string) => `${a}\u0000${b}`;

/**
 * Lookups the hot paths (inbox, validate, heartbeats, ticket requests) answer from memory.
 * Each map is rebuilt only after its collection changes.
 */
export class TicketIndexes {
  readonly scopeByName;
  readonly scopeByCapability;
  readonly capabilityNames;
  readonly instanceById;
  readonly instanceByOwnerAndCapability;
  readonly assignmentKeys;
  readonly ticketById;
  /** Unused tickets per target; expiry is checked at read time because it changes without a write. */
  readonly unusedTicketsByTarget;
  readonly sessionById;
  readonly sessionByTicket;
  readonly activeSessionCount;

  constructor(readonly store: TicketCollections) {
    this.scopeByName = store.ticketScopes.memo((scopes) => indexBy(scopes, (scope) => scope.name));
    this.scopeByCapability = store.ticketScopes.memo(capabilityOwners);
    this.capabilityNames = store.ticketScopes.memo((scopes): ReadonlySet<string> => new Set(capabilityOwners(scopes).keys()));
    this.instanceById = store.ticketInstances.memo((instances) => indexBy(instances, (instance) => instance.instanceId));
    this.instanceByOwnerAndCapability = store.ticketInstances.memo((instances) =>
      indexBy(instances, (instance) => pairKey(instance.agentLabel, instance.scope)),
    );
    this.assignmentKeys = store.ticketAssignments.memo(
      (assignments): ReadonlySet<string> => new Set(assignments.map((a) => pairKey(a.agentLabel, a.instanceScope))),
    );
    this.ticketById = store.tickets.memo((tickets) => indexBy(tickets, (ticket) => ticket.id));
    this.unusedTicketsByTarget = store.tickets.memo(unusedByTarget);
    this.sessionById = store.ticketSessions.memo((sessions) => indexBy(sessions, (session) => session.sessionId));
    this.sessionByTicket = store.ticketSessions.memo((sessions) => indexBy(sessions, (session) => session.ticketId));
    this.activeSessionCount = store.ticketSessions.memo((sessions) => sessions.filter(isLive).length);
  }

  isAssigned(agentLabel: string, instanceScope: string): boolean {
    return this.assignmentKeys().has(pairKey(agentLabel, instanceScope));
  }
}

export const isLive = (session: TicketSessionRecord) => session.status !== 'dead';

function capabilityOwners(scopes: readonly TicketScopeRecord[]): ReadonlyMap<string, TicketScopeRecord> {
  return new Map(scopes.flatMap((scope) => scope.scopes.map((capability) => [capability.name, scope] as const)));
}

function unusedByTarget(tickets: readonly TicketRecord[]): ReadonlyMap<string, readonly TicketRecord[]> {
  const byTarget = new Map<string, TicketRecord[]>();
  for (const ticket of tickets) {
    if (ticket.used) continue;
    const list = byTarget.get(ticket.target);
    if (list) list.push(ticket);
    else byTarget.set(ticket.target, [ticket]);
  }
  return byTarget;
}
