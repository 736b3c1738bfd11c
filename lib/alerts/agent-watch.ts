// `agent.revoked` for each agent certificate revoked, whichever way (the API, a restore, the CLI),
// told by the agents collection's change feed, as the audit log's own agent.revoked is.
import type { RecordCollection } from '../state/record-collection.ts';
import type { AgentRecord } from '../state/schemas.ts';
import { watchDiff } from '../state/watch-diff.ts';
import type { AlertService } from './service.ts';

export function alertRevocations(agents: RecordCollection<AgentRecord>, alerts: Pick<AlertService, 'emit'>): void {
  watchDiff(agents, (before, after) => {
    if (after?.revokedAt && !before?.revokedAt) alerts.emit('agent.revoked', { label: after.label, serial: after.serial, revokedAt: after.revokedAt });
  });
}
