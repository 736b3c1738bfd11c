import { Capability } from '../auth/capabilities.ts';
import type { Identity } from '../auth/identity.ts';
import type { IdentityRegistry } from '../auth/identity-registry.ts';

/** Who is asking about a site: admins see everything, agents only the site names they were given. */
export type SiteViewer = { role: 'admin' } | { role: 'agent'; allowedSites: readonly string[] };

/** The routes' access rules let only admins and agents through. */
export const siteViewer = (identity: Identity): SiteViewer =>
  identity.role === 'agent' ? { role: 'agent', allowedSites: identity.allowedSites } : { role: 'admin' };

/**
 * The viewer a long-lived connection's caller is now: an agent's allowedSites as they stand, and
 * null once its certificate was revoked or superseded or it lost `sites:read` (an admin's once
 * revoked). A live feed asks again before each message instead of trusting the handshake's identity.
 */
export function currentSiteViewer(identity: Identity, identities: Pick<IdentityRegistry, 'agentPresenting' | 'isRevoked'>): () => SiteViewer | null {
  if (identity.role === 'agent') {
    return () => {
      const { agent } = identities.agentPresenting(identity.label, identity.serial);
      return agent?.capabilitySet.has(Capability.SitesRead) ? { role: 'agent', allowedSites: agent.allowedSites } : null;
    };
  }
  return () => (identity.role === 'admin' && !(identity.serial && identities.isRevoked(identity.serial)) ? { role: 'admin' } : null);
}
