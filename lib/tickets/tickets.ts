import { hasCapability, type Identity } from '../auth/identity.ts';
import { isoNow, type Clock } from '../clock.ts';
import { AppError } from '../errors.ts';
import type { TicketRecord } from '../state/schemas.ts';
import type { AgentStanding } from './agent-standing.ts';
import type { TicketHolder } from './caller.ts';
import { changeOne, memoOver } from './collection-ops.ts';
import { genericNotFound, invalidTicket, limitReached } from './errors.ts';
import { newTicketId } from './ids.ts';
import { InboxCache } from './inbox-cache.ts';
import type { TicketIndexes } from './indexes.ts';
import { TICKET_LIFETIME_MS } from './limits.ts';
import type { FixedWindowRateLimiter } from '../rate-limit.ts';
import type { TicketRequest } from './schema.ts';
import type { SessionDesk } from './sessions.ts';
import type { AdminTicketView, TicketValidation, TicketView } from './views.ts';

export type { AdminTicketView, InboxEntry, TicketValidation, TicketView } from './views.ts';

/** Single-use grants from a source agent to a target agent for one instance. */
export class TicketDesk {
  readonly #inbox: InboxCache;
  readonly #adminList: () => readonly AdminTicketView[];

  constructor(
    private readonly indexes: TicketIndexes,
    private readonly standing: AgentStanding,
    private readonly rateLimiter: FixedWindowRateLimiter,
    private readonly sessions: Pick<SessionDesk, 'endForTicket'>,
    private readonly clock: Clock,
    private readonly maxTickets: number,
  ) {
    this.#inbox = new InboxCache(indexes);
    const { tickets, ticketSessions, ticketInstances, ticketScopes } = indexes.store;
    this.#adminList = memoOver([tickets, ticketSessions, ticketInstances, ticketScopes], () => {
      const transports = indexes.transportByInstance();
      return tickets.value.map((ticket) => ({
        ...ticket,
        sessionId: indexes.sessionForTicket(ticket.id)?.sessionId ?? null,
        // null once the instance is gone (until the cleanup removes the ticket)
        transport: transports.get(ticket.instanceId) ?? null,
      }));
    });
  }

  /** The spec's six checks in order; every failure but a stale instance is the same 404. */
  async request(caller: Identity, input: TicketRequest): Promise<TicketView> {
    const source = caller.role === 'agent' ? caller.label : null;
    const rateKey = caller.role === 'anonymous' ? '' : caller.commonName;
    if (!this.rateLimiter.take(rateKey, this.clock.now())) throw new AppError(429, 'Rate limit exceeded');
    // (1) source capability, (2) target capability and standing, (3) ownership, (4) liveness, (5) distinct, (6) assigned
    if (!hasCapability(caller, input.scope)) throw genericNotFound();
    if (!this.standing.holds(input.target, input.scope)) throw genericNotFound();
    const instance = this.indexes.instanceById().get(input.instanceId);
    if (!instance || source === null || instance.agentLabel !== source || instance.scope !== input.scope) throw genericNotFound();
    if (instance.status === 'stale') throw new AppError(503, 'Instance is stale');
    if (instance.status !== 'active') throw genericNotFound();
    if (input.target === source) throw genericNotFound();
    if (!this.indexes.isAssigned(input.target, instance.instanceScope)) throw genericNotFound();

    const now = this.clock.now();
    const ticket: TicketRecord = {
      id: newTicketId(),
      scope: input.scope,
      instanceId: input.instanceId,
      source,
      target: input.target,
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + TICKET_LIFETIME_MS).toISOString(),
      used: false,
      usedAt: null,
      revokedAt: null,
    };
    await this.indexes.store.tickets.edit((tickets) => {
      if (tickets.size >= this.maxTickets) throw limitReached('Ticket');
      tickets.put(ticket);
    });
    return viewOf(ticket);
  }

  /**
   * `{"tickets": [...]}`, the holder's unused, unexpired tickets, as bytes: polled every few seconds
   * by every agent, so serialized once per change of its tickets.
   */
  inboxJson(holder: TicketHolder): Uint8Array<ArrayBuffer> {
    return this.#inbox.body(holder, this.clock.now());
  }

  /**
   * Consumes the ticket. The decisive check runs again inside the update, on the record it
   * changes, so of many concurrent validations exactly one sees it unused whatever is awaited
   * before; the answer waits until `used` is on disk. A target revoked or stripped of the scope
   * since the ticket was issued fails like any other caller that is not the target.
   */
  async validate(caller: TicketHolder, ticketId: string): Promise<TicketValidation> {
    const ticket = this.indexes.ticketById().get(ticketId);
    const now = this.clock.now();
    const unusable = (record: TicketRecord) =>
      record.used || record.target !== caller.label || !caller.capabilities.has(record.scope) || Date.parse(record.expiresAt) <= now;
    if (!ticket || unusable(ticket)) throw invalidTicket();
    const transport = this.indexes.transportByInstance().get(ticket.instanceId);
    if (!transport) throw invalidTicket();
    const usedAt = new Date(now).toISOString();
    const consumed = await changeOne(this.indexes.store.tickets, ticketId, (record) => {
      if (unusable(record)) throw invalidTicket();
      return { ...record, used: true, usedAt };
    });
    if (!consumed) throw invalidTicket();
    const { scope, instanceId, source, target } = ticket;
    return { valid: true, scope, instanceId, source, target, transport };
  }

  /** Every stored ticket, used and expired included, for the admin listing. */
  list(): readonly AdminTicketView[] {
    return this.#adminList();
  }

  /** Admin revoke: the ticket counts as used, can no longer open a session, and ends the one it opened. */
  async revoke(ticketId: string): Promise<void> {
    if (!this.indexes.ticketById().has(ticketId)) throw new AppError(404, 'Ticket not found');
    const now = isoNow(this.clock);
    await Promise.all([
      changeOne(this.indexes.store.tickets, ticketId, (ticket) => ({ ...ticket, used: true, usedAt: ticket.usedAt ?? now, revokedAt: now })),
      this.sessions.endForTicket(ticketId),
    ]);
  }
}

const viewOf = ({ id, scope, instanceId, source, target, expiresAt }: TicketRecord): TicketView => ({ id, scope, instanceId, source, target, expiresAt });
