import type { AgentIdentity } from '../auth/identity.ts';
import { isoNow, type Clock } from '../clock.ts';
import { AppError } from '../http/errors.ts';
import type { SessionEndReason, TicketSessionRecord } from '../state/schemas.ts';
import { changeWhere } from './collection-ops.ts';
import { limitReached } from './errors.ts';
import { newSessionId } from './ids.ts';
import type { TicketIndexes } from './indexes.ts';
import { MAX_ACTIVE_SESSIONS, RECONNECT_GRACE_SECONDS } from './limits.ts';
import { firstFailure, type SessionCheckList } from './session-checks.ts';
import { endSessions } from './session-end.ts';

export type HeartbeatResult = { authorized: true } | { authorized: false; reason: SessionEndReason };

interface SessionChecks {
  heartbeat: SessionCheckList;
  statusChange: SessionCheckList;
}

// Not found and not a party to it look the same.
const sessionNotFound = () => new AppError(404, 'Session not found');

/** Sessions opened from consumed tickets, re-authorized on every heartbeat and status change. */
export class SessionDesk {
  constructor(
    private readonly indexes: TicketIndexes,
    private readonly checks: SessionChecks,
    private readonly clock: Clock,
  ) {}

  async create(caller: AgentIdentity, ticketId: string): Promise<TicketSessionRecord> {
    const ticket = this.indexes.ticketById().get(ticketId);
    if (!ticket || !ticket.used || ticket.revokedAt !== null || ticket.target !== caller.label) {
      throw new AppError(400, 'Invalid ticket state');
    }
    if (this.indexes.sessionByTicket().has(ticketId)) throw new AppError(409, 'Session already exists for this ticket');
    if (this.indexes.activeSessionCount() >= MAX_ACTIVE_SESSIONS) throw limitReached('Session');
    const now = isoNow(this.clock);
    const session: TicketSessionRecord = {
      sessionId: newSessionId(),
      ticketId,
      scope: ticket.scope,
      instanceId: ticket.instanceId,
      source: ticket.source,
      target: ticket.target,
      createdAt: now,
      lastActivityAt: now,
      status: 'active',
      reconnectGraceSeconds: RECONNECT_GRACE_SECONDS,
      endedAt: null,
      endReason: null,
    };
    // No await between the checks above and this push, so concurrent creations for one ticket see each other.
    await this.indexes.store.ticketSessions.update((sessions) => void sessions.push(session));
    return session;
  }

  async heartbeat(caller: AgentIdentity, sessionId: string): Promise<HeartbeatResult> {
    const session = this.#forParty(caller, sessionId);
    if (session.status === 'dead') return { authorized: false, reason: session.endReason ?? 'admin_killed' };
    const reason = firstFailure(session, this.checks.heartbeat);
    if (reason) {
      await this.#end(sessionId, reason);
      return { authorized: false, reason };
    }
    await this.#change(sessionId, {});
    return { authorized: true };
  }

  /** Only the status comes from the caller; the server stamps the activity time. */
  async setStatus(caller: AgentIdentity, sessionId: string, status: 'active' | 'grace'): Promise<void> {
    const session = this.#forParty(caller, sessionId);
    if (session.status === 'dead') throw new AppError(409, 'Session terminated');
    const reason = firstFailure(session, this.checks.statusChange);
    if (reason) {
      await this.#end(sessionId, reason);
      throw new AppError(409, 'Session authorization failed');
    }
    await this.#change(sessionId, { status });
  }

  async kill(sessionId: string): Promise<void> {
    if (!this.indexes.sessionById().has(sessionId)) throw sessionNotFound();
    await this.#end(sessionId, 'admin_killed');
  }

  list(): readonly TicketSessionRecord[] {
    return this.indexes.store.ticketSessions.value;
  }

  #forParty(caller: AgentIdentity, sessionId: string): TicketSessionRecord {
    const session = this.indexes.sessionById().get(sessionId);
    if (!session || (session.source !== caller.label && session.target !== caller.label)) throw sessionNotFound();
    return session;
  }

  #end(sessionId: string, reason: SessionEndReason): Promise<number> {
    return endSessions(this.indexes.store.ticketSessions, (session) => session.sessionId === sessionId, reason, isoNow(this.clock));
  }

  #change(sessionId: string, change: Partial<Pick<TicketSessionRecord, 'status'>>): Promise<number> {
    const lastActivityAt = isoNow(this.clock);
    return changeWhere(
      this.indexes.store.ticketSessions,
      (session) => session.sessionId === sessionId && session.status !== 'dead',
      (session) => Object.assign(session, change, { lastActivityAt }),
    );
  }
}
