import type { AnsweredRequest } from '../answered-request.ts';
import type { Identity } from '../auth/identity.ts';
import type { AuditActor, AuditSink } from './entry.ts';

const CHANGES_STATE = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
/** Path parameters that are credentials themselves (an invitation token, a ticket id): never logged. */
const SECRET_PARAM = /token|ticket|secret|password|key/i;
const REDACTED = '[redacted]';

/** The route's main path parameter: the last one in the pattern. */
function targetOf(route: string, params: Readonly<Record<string, string>>): string | null {
  const names = [...route.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  const name = names.at(-1);
  if (name === undefined) return null;
  return SECRET_PARAM.test(name) ? REDACTED : (params[name] ?? null);
}

export function actorOf(identity: Identity | undefined): AuditActor {
  if (!identity || identity.role === 'anonymous') return { role: 'anonymous', label: null, serial: null };
  return { role: identity.role, label: identity.label, serial: identity.serial };
}

/** The observer that appends every state-changing request (and WebSocket handshake) to the log. */
export function auditRequests(audit: AuditSink): (answer: AnsweredRequest) => void {
  return (answer) => {
    if (answer.route === undefined || !(CHANGES_STATE.has(answer.method) || answer.upgrade)) return;
    audit.record({
      actor: actorOf(answer.identity),
      method: answer.upgrade ? 'WS' : answer.method,
      route: answer.route,
      target: targetOf(answer.route, answer.params),
      status: answer.status,
    });
  };
}
