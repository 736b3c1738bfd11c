import { GroupIndex } from '../state/group-index.ts';
import type { RecordCollection } from '../state/record-collection.ts';
import type { TicketRecord, TicketScopeRecord, TicketSessionRecord, TransportConfig } from '../state/schemas.ts';
import { pairKey, type Store } from '../state/store.ts';
import { memoOver } from './collection-ops.ts';
import { ticketTransport } from './transport.ts';

export type TicketCollections = Pick<Store, 'ticketScopes' | 'ticketInstances' | 'ticketAssignments' | 'tickets' | 'ticketSessions'>;

/** Records by their key: the collection itself answers. */
type ByKey<R> = () => Pick<RecordCollection<R>, 'get' | 'has'>;

/**
 * Lookups the hot paths (inbox, validate, heartbeats, ticket requests) answer from memory. Lookups
 * by a record's own key go to the collection; the other indexes follow its changes one by one, so
 * a write does not rebuild them.
 */
export class TicketIndexes {
  readonly scopeByName: ByKey<TicketScopeRecord>;
  readonly scopeByCapability;
  readonly instanceById;
  readonly ticketById: ByKey<TicketRecord>;
  readonly sessionById: ByKey<TicketSessionRecord>;
  /** What a ticket's target is handed for each instance (inbox and validation). */
  readonly transportByInstance;
  /** Unused tickets by target (expired ones included: expiry changes nothing on disk). */
  readonly waiting: GroupIndex<TicketRecord>;
  readonly #sessionsByTicket: GroupIndex<TicketSessionRecord>;
  readonly #liveSessions: GroupIndex<TicketSessionRecord>;

  constructor(readonly store: TicketCollections) {
    this.scopeByName = () => store.ticketScopes;
    this.scopeByCapability = store.ticketScopes.memo(capabilityOwners);
    this.instanceById = () => store.ticketInstances;
    this.ticketById = () => store.tickets;
    this.sessionById = () => store.ticketSessions;
    this.waiting = new GroupIndex(store.tickets, (ticket) => (ticket.used ? undefined : ticket.target));
    this.#sessionsByTicket = new GroupIndex(store.ticketSessions, (session) => session.ticketId);
    this.#liveSessions = new GroupIndex(store.ticketSessions, (session) => (session.status === 'dead' ? undefined : ''));
    this.transportByInstance = memoOver(
      [store.ticketInstances, store.ticketScopes],
      (): ReadonlyMap<string, TransportConfig> =>
        new Map(store.ticketInstances.value.map((instance) => [instance.instanceId, ticketTransport(instance, this.scopeByCapability().get(instance.scope))])),
    );
  }

  isAssigned(agentLabel: string, instanceScope: string): boolean {
    return this.store.ticketAssignments.has(pairKey(agentLabel, instanceScope));
  }

  sessionForTicket(ticketId: string): TicketSessionRecord | undefined {
    return this.#sessionsByTicket.one(ticketId);
  }

  activeSessionCount(): number {
    return this.#liveSessions.size;
  }
}

function capabilityOwners(scopes: readonly TicketScopeRecord[]): ReadonlyMap<string, TicketScopeRecord> {
  return new Map(scopes.flatMap((scope) => scope.scopes.map((capability) => [capability.name, scope] as const)));
}
