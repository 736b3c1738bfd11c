import type { AgentIdentity } from '../auth/identity.ts';
import { isoNow, type Clock } from '../clock.ts';
import { AppError } from '../errors.ts';
import type { LiveSessionStatus, SessionEndReason, TicketSessionRecord } from '../state/schemas.ts';
import { changeOne } from './collection-ops.ts';
import { limitReached } from './errors.ts';
import { HeartbeatBuffer } from './heartbeat-buffer.ts';
import { newSessionId } from './ids.ts';
import type { TicketIndexes } from './indexes.ts';
import { MAX_ACTIVE_SESSIONS, RECONNECT_GRACE_SECONDS, SESSION_ACTIVITY_WRITE_MS } from './limits.ts';
import { firstFailure, type SessionCheckList } from './session-checks.ts';

export type HeartbeatResult = { authorized: true } | { authorized: false; reason: SessionEndReason };

interface SessionChecks {
  heartbeat: SessionCheckList;
  statusChange: SessionCheckList;
}

// Not found and not a party to it look the same.
const sessionNotFound = () => new AppError(404, 'Session not found');
const sessionTerminated = () => new AppError(409, 'Session terminated');

/** Sessions opened from consumed tickets, re-authorized on every heartbeat and status change. */
export class SessionDesk {
  /**
   * Heartbeat times newer than the stored lastActivityAt, per live session: a heartbeat that changes
   * nothing else writes once the stored time is 30 s old; the next status change or end writes the
   * latest one; the listing shows it.
   */
  readonly #activity: HeartbeatBuffer<TicketSessionRecord>;

  constructor(
    private readonly indexes: TicketIndexes,
    private readonly checks: SessionChecks,
    private readonly clock: Clock,
  ) {
    this.#activity = new HeartbeatBuffer(indexes.store.ticketSessions, {
      key: (session) => session.sessionId,
      stored: (session) => session.lastActivityAt,
      set: (session, iso) => ({ ...session, lastActivityAt: iso }),
      writeEveryMs: SESSION_ACTIVITY_WRITE_MS,
      writable: (session) => session.status !== 'dead',
    });
  }

  async create(caller: AgentIdentity, ticketId: string): Promise<TicketSessionRecord> {
    this.#assertCanOpen(caller, ticketId);
    const now = isoNow(this.clock);
    const ticket = this.indexes.ticketById().get(ticketId)!;
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
    // Checked again inside the update, against the state it changes: one session per ticket holds
    // whatever is awaited before it.
    await this.indexes.store.ticketSessions.edit((sessions) => {
      this.#assertCanOpen(caller, ticketId);
      sessions.put(session);
    });
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
    await this.#activity.beat(session, this.clock.now());
    return { authorized: true };
  }

  /** Only the status comes from the caller; the server stamps the activity time. */
  async setStatus(caller: AgentIdentity, sessionId: string, status: LiveSessionStatus): Promise<void> {
    const session = this.#forParty(caller, sessionId);
    if (session.status === 'dead') throw sessionTerminated();
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

  /** An admin revoked the ticket: its session (if live) ends as killed. */
  async endForTicket(ticketId: string): Promise<void> {
    const session = this.indexes.sessionForTicket(ticketId);
    if (session) await this.#end(session.sessionId, 'admin_killed');
  }

  /** Stored sessions with the latest activity of live ones. */
  list(): readonly TicketSessionRecord[] {
    return this.#activity.merged(this.indexes.store.ticketSessions.value);
  }

  /** Forgets the activity of sessions that ended or went (the periodic cleanup). */
  forgetRemoved(): void {
    const sessions = this.indexes.sessionById();
    this.#activity.forgetWhere((sessionId) => (sessions.get(sessionId)?.status ?? 'dead') === 'dead');
  }

  /** Writes the activity held in memory (on shutdown). */
  persistActivity(): Promise<void> {
    return this.#activity.flush();
  }

  #assertCanOpen(caller: AgentIdentity, ticketId: string): void {
    const ticket = this.indexes.ticketById().get(ticketId);
    if (!ticket || !ticket.used || ticket.revokedAt !== null || ticket.target !== caller.label || !caller.capabilities.has(ticket.scope)) {
      throw new AppError(400, 'Invalid ticket state');
    }
    if (this.indexes.sessionForTicket(ticketId)) throw new AppError(409, 'Session already exists for this ticket');
    if (this.indexes.activeSessionCount() >= MAX_ACTIVE_SESSIONS) throw limitReached('Session');
  }

  #forParty(caller: AgentIdentity, sessionId: string): TicketSessionRecord {
    const session = this.indexes.sessionById().get(sessionId);
    // a re-issued label's earlier certificate is no party to its sessions
    if (!session || caller.superseded || (session.source !== caller.label && session.target !== caller.label)) throw sessionNotFound();
    return session;
  }

  /** Ends a live session with its latest activity; a dead one keeps the reason it ended with. */
  async #end(sessionId: string, reason: SessionEndReason): Promise<void> {
    if (this.indexes.sessionById().get(sessionId)?.status === 'dead') return;
    const latest = this.#activity.latest(sessionId);
    this.#activity.forget(sessionId);
    const endedAt = isoNow(this.clock);
    await changeOne(this.indexes.store.ticketSessions, sessionId, (session) => {
      if (session.status === 'dead') throw sessionTerminated();
      const lastActivityAt = latest === undefined ? session.lastActivityAt : new Date(latest).toISOString();
      return { ...session, status: 'dead' as const, endedAt, endReason: reason, lastActivityAt };
    });
  }

  /** Writes a status change, stamped with the activity time now. */
  async #change(sessionId: string, change: { status?: LiveSessionStatus }): Promise<void> {
    const lastActivityAt = isoNow(this.clock);
    this.#activity.forget(sessionId);
    const changed = await changeOne(this.indexes.store.ticketSessions, sessionId, (session) => {
      if (session.status === 'dead') throw sessionTerminated();
      return { ...session, ...change, lastActivityAt };
    });
    if (!changed) throw sessionNotFound();
  }
}
