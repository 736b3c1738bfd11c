import { Capability } from '../auth/capabilities.ts';
import type { Identity } from '../auth/identity.ts';
import type { IdentityRegistry } from '../auth/identity-registry.ts';
import { standingAccess } from '../auth/standing-access.ts';

/** Who is asking about a site: admins see everything, agents only the site names they were given. */
export type SiteViewer = { role: 'admin' } | { role: 'agent'; allowedSites: readonly string[] };

/** The routes' access rules let only admins and agents through. */
export const siteViewer = (identity: Identity): SiteViewer =>
  identity.role === 'agent' ? { role: 'agent', allowedSites: identity.allowedSites } : { role: 'admin' };

/** The viewer a long-lived connection's caller is now (lib/auth/standing-access.ts). */
export const currentSiteViewer = (identity: Identity, identities: Pick<IdentityRegistry, 'agentPresenting' | 'isRevoked'>): (() => SiteViewer | null) =>
  standingAccess(identity, identities, Capability.SitesRead);
