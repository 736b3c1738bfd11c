import type { Clock } from '../clock.ts';
import { errorMessage } from '../errors.ts';
import type { Logger } from '../log.ts';
import { CLEANUP_MS, LIVENESS_CHECK_MS, RATE_COUNTER_CLEANUP_MS } from './limits.ts';
import type { TicketService } from './service.ts';

/**
 * Starts the liveness check, the cleanup and the rate-counter pruning; returns the function that
 * stops them and writes the heartbeats still held in memory.
 */
export function startTicketTimers(tickets: TicketService, clock: Clock, log: Logger): () => Promise<void> {
  const guarded = (name: string, task: () => Promise<void>) => () => {
    task().catch((error: unknown) => log.error(`tickets ${name} failed: ${errorMessage(error)}`));
  };
  const stops = [
    clock.every(LIVENESS_CHECK_MS, guarded('liveness check', () => tickets.instances.sweep())),
    clock.every(CLEANUP_MS, guarded('cleanup', () => tickets.removeExpiredRecords())),
    clock.every(RATE_COUNTER_CLEANUP_MS, () => tickets.rateLimiter.prune(clock.now())),
  ];
  return async () => {
    stops.forEach((stop) => stop());
    await tickets.persistHeartbeats().catch((error: unknown) => log.error(`tickets heartbeat write failed: ${errorMessage(error)}`));
  };
}
