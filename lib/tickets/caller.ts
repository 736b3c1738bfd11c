import type { Identity } from '../auth/identity.ts';

/** Admin-or-owner endpoints: an admin acts on anything, an agent only on what its label owns, unless its certificate was superseded. */
export const actsFor = (identity: Identity, ownerLabel: string) =>
  identity.role === 'admin' || (identity.role === 'agent' && !identity.superseded && identity.label === ownerLabel);

