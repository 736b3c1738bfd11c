import type { TicketRecord, TicketScopeRecord, TicketSessionRecord, TransportConfig } from '../state/schemas.ts';
import type { Store } from '../state/store.ts';
import { indexBy, memoOver, positionBy } from './collection-ops.ts';
import { ticketTransport } from './transport.ts';

export type TicketCollections = Pick<Store, 'ticketScopes' | 'ticketInstances' | 'ticketAssignments' | 'tickets' | 'ticketSessions'>;

/** A compound map key; NUL cannot appear in a certificate label or a capability name. */
const pairKey = (a: string, b: string) => `${a}\u0000${b}`;

/** An unused ticket waiting in its target's inbox, with its expiry parsed once. */
interface Waiting {
  ticket: TicketRecord;
  expiresAtMs: number;
}

/**
 * Lookups the hot paths (inbox, validate, heartbeats, ticket requests) answer from memory.
 * Each map is rebuilt only after its collection changes. `...At` maps give a record's position,
 * for `changeOne`.
 */
export class TicketIndexes {
  readonly scopeByName;
  readonly scopeByCapability;
  readonly instanceById;
  readonly instanceAt;
  readonly assignmentKeys;
  readonly ticketById;
  readonly ticketAt;
  readonly sessionById;
  readonly sessionAt;
  readonly sessionByTicket;
  readonly activeSessionCount;
  /** What a ticket's target is handed for each instance (inbox and validation). */
  readonly transportByInstance;
  readonly #waitingByTarget;

  constructor(readonly store: TicketCollections) {
    this.scopeByName = store.ticketScopes.memo((scopes) => indexBy(scopes, (scope) => scope.name));
    this.scopeByCapability = store.ticketScopes.memo(capabilityOwners);
    this.instanceById = store.ticketInstances.memo((instances) => indexBy(instances, (instance) => instance.instanceId));
    this.instanceAt = store.ticketInstances.memo((instances) => positionBy(instances, (instance) => instance.instanceId));
    this.assignmentKeys = store.ticketAssignments.memo(
      (assignments): ReadonlySet<string> => new Set(assignments.map((a) => pairKey(a.agentLabel, a.instanceScope))),
    );
    this.ticketById = store.tickets.memo((tickets) => indexBy(tickets, (ticket) => ticket.id));
    this.ticketAt = store.tickets.memo((tickets) => positionBy(tickets, (ticket) => ticket.id));
    this.#waitingByTarget = store.tickets.memo(waitingByTarget);
    this.sessionById = store.ticketSessions.memo((sessions) => indexBy(sessions, (session) => session.sessionId));
    this.sessionAt = store.ticketSessions.memo((sessions) => positionBy(sessions, (session) => session.sessionId));
    this.sessionByTicket = store.ticketSessions.memo((sessions) => indexBy(sessions, (session) => session.ticketId));
    this.activeSessionCount = store.ticketSessions.memo((sessions) => sessions.filter(isLive).length);
    this.transportByInstance = memoOver(
      [store.ticketInstances, store.ticketScopes],
      (): ReadonlyMap<string, TransportConfig> =>
        new Map(store.ticketInstances.value.map((instance) => [instance.instanceId, ticketTransport(instance, this.scopeByCapability().get(instance.scope))])),
    );
  }

  isAssigned(agentLabel: string, instanceScope: string): boolean {
    return this.assignmentKeys().has(pairKey(agentLabel, instanceScope));
  }

  /**
   * The target's unused tickets that have not expired at `now`. Expiry changes without a write, so
   * expired entries are dropped from the (privately owned) index as they are found rather than
   * waiting for the hourly cleanup to rewrite the tickets.
   */
  waitingFor(target: string, now: number): readonly Waiting[] {
    const byTarget = this.#waitingByTarget();
    const waiting = byTarget.get(target);
    if (!waiting) return [];
    const unexpired = (entry: Waiting) => entry.expiresAtMs > now;
    if (waiting.every(unexpired)) return waiting;
    const left = waiting.filter(unexpired);
    if (left.length === 0) byTarget.delete(target);
    else byTarget.set(target, left);
    return left;
  }
}

const isLive = (session: TicketSessionRecord) => session.status !== 'dead';

function capabilityOwners(scopes: readonly TicketScopeRecord[]): ReadonlyMap<string, TicketScopeRecord> {
  return new Map(scopes.flatMap((scope) => scope.scopes.map((capability) => [capability.name, scope] as const)));
}

function waitingByTarget(tickets: readonly TicketRecord[]): Map<string, Waiting[]> {
  const byTarget = new Map<string, Waiting[]>();
  for (const ticket of tickets) {
    if (ticket.used) continue;
    const entry = { ticket, expiresAtMs: Date.parse(ticket.expiresAt) };
    const list = byTarget.get(ticket.target);
    if (list) list.push(entry);
    else byTarget.set(ticket.target, [entry]);
  }
  return byTarget;
}
