import type { Identity } from '../auth/identity.ts';

/** Who is asking about a site: admins see everything, agents only the site names they were given. */
export type SiteViewer = { role: 'admin' } | { role: 'agent'; allowedSites: readonly string[] };

/** The routes' access rules let only admins and agents through. */
export const siteViewer = (identity: Identity): SiteViewer =>
  identity.role === 'agent' ? { role: 'agent', allowedSites: identity.allowedSites } : { role: 'admin' };
