// Limits and timings of the ticket system (spec: tickets.md, Limits). Ticket lifetime is ours to choose.

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

export const TICKET_LIFETIME_MS = 30 * SECOND;
export const TICKET_REQUESTS_PER_WINDOW = 10;
export const RATE_WINDOW_MS = MINUTE;
export const RATE_COUNTER_CLEANUP_MS = 2 * MINUTE;

export const MAX_INSTANCES = 200;
export const MAX_TICKETS = 1000;

/** The limits a panel may be started with; the spec's by default (the benchmark lifts them to load the write path). */
export interface TicketLimits {
  maxTickets: number;
  requestsPerWindow: number;
}
export const SPEC_TICKET_LIMITS: TicketLimits = { maxTickets: MAX_TICKETS, requestsPerWindow: TICKET_REQUESTS_PER_WINDOW };
export const MAX_ACTIVE_SESSIONS = 500;

export const LIVENESS_CHECK_MS = MINUTE;
export const INSTANCE_STALE_AFTER_MS = 5 * MINUTE;
export const INSTANCE_REMOVED_AFTER_MS = HOUR;
/** A heartbeat that only moves lastHeartbeat is kept in memory and written at most this often. */
export const INSTANCE_HEARTBEAT_WRITE_MS = MINUTE;

export const CLEANUP_MS = MINUTE;
export const TICKET_REMOVED_AFTER_MS = HOUR;
export const DEAD_SESSION_REMOVED_AFTER_MS = 24 * HOUR;

export const RECONNECT_GRACE_SECONDS = 60;
/** A heartbeat that only moves lastActivityAt is kept in memory and written at most this often. */
export const SESSION_ACTIVITY_WRITE_MS = 30 * SECOND;
