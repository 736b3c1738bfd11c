import type { AgentIdentity, Identity } from '../auth/identity.ts';

/** Admin-or-owner endpoints: an admin acts on anything, an agent only on what its label owns, unless its certificate was superseded. */
export const actsFor = (identity: Identity, ownerLabel: string) =>
  identity.role === 'admin' || (identity.role === 'agent' && !identity.superseded && identity.label === ownerLabel);

/**
 * A ticket's target as the label-keyed routes see it. Its capabilities are those of its active
 * registry record (none once revoked): a ticket is usable only while the target still holds its scope.
 */
export type TicketHolder = Pick<AgentIdentity, 'label' | 'capabilities'>;
