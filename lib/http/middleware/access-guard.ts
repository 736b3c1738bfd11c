import type { AnyRoute } from '../route.ts';
import { AppError, LABEL_REQUIRED } from '../../errors.ts';
import type { Middleware } from '../state.ts';

/** Role, capability and label rules of the route; admin passes roles and capabilities. */
export function accessGuard(route: AnyRoute): Middleware | undefined {
  const { roles, capability, needsLabel, public: isPublic } = route.access;
  if (isPublic) return undefined;
  // a re-issued label's old certificate cannot act for the label (its capabilities are gone already);
  // the ticket routes answer it as any caller that is not the ticket's party, with their generic
  // 401, 400 or 404 (tickets.md: agent-facing endpoints answer authorization failures so)
  const refuseSuperseded = needsLabel && !route.path.startsWith('/api/tickets/');
  return (_request, state) => {
    const identity = state.identity!;
    if (identity.role === 'agent') {
      if (!roles.includes('agent')) throw new AppError(403, 'Insufficient certificate scope');
      if (capability && !identity.capabilities.has(capability)) throw new AppError(403, 'Insufficient certificate capability');
    }
    if (needsLabel && !identity.label) throw new AppError(400, LABEL_REQUIRED);
    if (refuseSuperseded && identity.role === 'agent' && identity.superseded) throw new AppError(403, 'Insufficient certificate capability');
    return undefined;
  };
}
