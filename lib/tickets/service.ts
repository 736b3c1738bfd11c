import type { IdentityRegistry } from '../auth/identity-registry.ts';
import type { Clock } from '../clock.ts';
import { AgentStanding } from './agent-standing.ts';
import { AssignmentBook } from './assignments.ts';
import { removeExpiredRecords } from './cleanup.ts';
import { TicketIndexes, type TicketCollections } from './indexes.ts';
import { InstanceRegistry } from './instances.ts';
import { RATE_WINDOW_MS, SPEC_TICKET_LIMITS, type TicketLimits } from './limits.ts';
import { FixedWindowRateLimiter } from '../rate-limit.ts';
import { sessionCheckLists } from './session-checks.ts';
import { SessionDesk } from './sessions.ts';
import { ScopeRegistry } from './scopes.ts';
import { TicketDesk } from './tickets.ts';

export interface TicketDeps {
  store: TicketCollections;
  clock: Clock;
  identities: IdentityRegistry;
  /** The configured domain, read on each use (it is set during onboarding). */
  relayDomain: () => string | null;
  /** The spec's limits unless given. */
  limits?: Partial<TicketLimits>;
}

/** The agent-to-agent ticket system: scopes, instances, assignments, tickets and sessions. */
export class TicketService {
  readonly scopes: ScopeRegistry;
  readonly instances: InstanceRegistry;
  readonly assignments: AssignmentBook;
  readonly tickets: TicketDesk;
  readonly sessions: SessionDesk;
  readonly rateLimiter: FixedWindowRateLimiter;

  readonly #indexes: TicketIndexes;
  readonly #capabilityNames: () => ReadonlySet<string>;

  constructor(private readonly deps: TicketDeps) {
    const limits = { ...SPEC_TICKET_LIMITS, ...deps.limits };
    this.rateLimiter = new FixedWindowRateLimiter(limits.requestsPerWindow, RATE_WINDOW_MS);
    const indexes = new TicketIndexes(deps.store);
    const standing = new AgentStanding(deps.identities);
    this.#indexes = indexes;
    this.#capabilityNames = deps.store.ticketScopes.memo(() => new Set(indexes.scopeByCapability().keys()));
    this.instances = new InstanceRegistry(indexes, standing, deps.clock, deps.relayDomain);
    this.scopes = new ScopeRegistry(indexes, this.instances, deps.clock);
    this.assignments = new AssignmentBook(indexes, standing, deps.clock);
    this.sessions = new SessionDesk(indexes, sessionCheckLists(standing, indexes), deps.clock);
    this.tickets = new TicketDesk(indexes, standing, this.rateLimiter, this.sessions, deps.clock, limits.maxTickets);
  }

  /** Capability names declared by registered scopes: agent capability grants are checked against it. */
  capabilityNames(): ReadonlySet<string> {
    return this.#capabilityNames();
  }

  /** The minute cleanup: old tickets, long-dead sessions, crash leftovers, and activity of ended sessions. */
  async removeExpiredRecords(): Promise<void> {
    await removeExpiredRecords(this.#indexes, this.deps.clock);
    this.sessions.forgetRemoved();
  }

  /** Writes the heartbeats held in memory (on shutdown). */
  async persistHeartbeats(): Promise<void> {
    await Promise.all([this.instances.persistHeartbeats(), this.sessions.persistActivity()]);
  }
}
