import type { JsonCollection } from '../state/collection.ts';
import type { SessionEndReason, TicketSessionRecord } from '../state/schemas.ts';
import { changeWhere } from './collection-ops.ts';

/** Marks live sessions dead with a reason; dead ones keep the reason they ended with. */
export function endSessions(
  sessions: JsonCollection<TicketSessionRecord[]>,
  matches: (session: TicketSessionRecord) => boolean,
  reason: SessionEndReason,
  endedAt: string,
): Promise<number> {
  return changeWhere(
    sessions,
    (session) => session.status !== 'dead' && matches(session),
    (session) => Object.assign(session, { status: 'dead', endedAt, endReason: reason }),
  );
}
