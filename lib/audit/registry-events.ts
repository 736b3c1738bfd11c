import { watchDiff } from '../state/watch-diff.ts';
import type { AgentRecord } from '../state/schemas.ts';
import type { Store } from '../state/store.ts';
import type { AuditRecord, AuditSink } from './entry.ts';

/**
 * Registry changes and revocations, however they came about (a request, enrollment, the registry
 * file edited by hand): logged from the collections' change feed, so no service has to remember
 * to. Services replace the registry as a whole, so each change is a diff against the last view.
 */
export function auditRegistry(store: Store, audit: AuditSink): void {
  watchDiff(store.agents, (before, after) => agentEvents(before, after).forEach((e) => audit.record(e)));
  watchDiff(store.revocations, (before, after) => {
    if (!before && after) audit.record({ event: 'certificate.revoked', target: after.serial, ...(after.label ? { outcome: after.label } : {}) });
  });
}

function agentEvents(before: AgentRecord | undefined, after: AgentRecord | undefined): AuditRecord[] {
  if (!before) return [{ event: 'agent.issued', target: after!.label, outcome: after!.serial }];
  if (!after) return [{ event: 'agent.removed', target: before.label, outcome: before.serial }];
  const events: AuditRecord[] = [];
  if (!before.revokedAt && after.revokedAt) events.push({ event: 'agent.revoked', target: after.label, outcome: after.serial });
  if (before.capabilities.join() !== after.capabilities.join()) events.push({ event: 'agent.capabilities', target: after.label, outcome: after.capabilities.join(',') });
  if (before.allowedSites.join() !== after.allowedSites.join()) events.push({ event: 'agent.allowed-sites', target: after.label, outcome: after.allowedSites.join(',') });
  return events;
}
