import type { SessionEndReason, TicketSessionRecord } from '../state/schemas.ts';
import type { AgentStanding } from './agent-standing.ts';
import type { TicketIndexes } from './indexes.ts';
import { instanceScopeOf } from './instance-scope.ts';

interface AuthorizationCheck {
  reason: SessionEndReason;
  fails(session: TicketSessionRecord): boolean;
}

export type SessionCheckList = readonly AuthorizationCheck[];

/** The re-authorization checks of live sessions, each with the reason it ends a session with. */
export function sessionCheckLists(standing: AgentStanding, indexes: TicketIndexes) {
  const sourceRevoked: AuthorizationCheck = { reason: 'source_revoked', fails: (s) => standing.isRevoked(s.source) };
  const sourceLostCapability: AuthorizationCheck = { reason: 'capability_removed', fails: (s) => !standing.holds(s.source, s.scope) };
  const targetRevoked: AuthorizationCheck = { reason: 'target_revoked', fails: (s) => standing.isRevoked(s.target) };
  const targetLostCapability: AuthorizationCheck = { reason: 'capability_removed', fails: (s) => !standing.holds(s.target, s.scope) };
  const assignmentRemoved: AuthorizationCheck = {
    reason: 'assignment_removed',
    fails: (s) => !indexes.isAssigned(s.target, instanceScopeOf(s.scope, s.instanceId)),
  };
  return {
    /** Heartbeat, in the spec's order. */
    heartbeat: [sourceRevoked, sourceLostCapability, targetRevoked, targetLostCapability, assignmentRemoved] as SessionCheckList,
    /** PATCH re-validation, in the spec's order. */
    statusChange: [sourceRevoked, sourceLostCapability, assignmentRemoved] as SessionCheckList,
  };
}

export function firstFailure(session: TicketSessionRecord, checks: SessionCheckList): SessionEndReason | null {
  return checks.find((check) => check.fails(session))?.reason ?? null;
}
