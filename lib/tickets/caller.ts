import type { AgentIdentity, Identity } from '../auth/identity.ts';
import { AppError, LABEL_REQUIRED } from '../errors.ts';

/**
 * The agent behind a "needs label" endpoint (the chain already refused others; this narrows the
 * type). A superseded certificate of the label (re-issued since) gets the same 403 as a missing
 * capability.
 */
export function labelledAgent(identity: Identity): AgentIdentity {
  if (identity.role !== 'agent' || !identity.label) throw new AppError(400, LABEL_REQUIRED);
  if (identity.superseded) throw new AppError(403, 'Insufficient certificate capability');
  return identity;
}

/** Admin-or-owner endpoints: an admin acts on anything, an agent only on what its label owns, unless its certificate was superseded. */
export const actsFor = (identity: Identity, ownerLabel: string) =>
  identity.role === 'admin' || (identity.role === 'agent' && !identity.superseded && identity.label === ownerLabel);

