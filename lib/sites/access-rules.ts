import { errorMessage } from '../errors.ts';
import type { SiteRecord } from '../state/schemas.ts';
import type { ProtectedSiteRule } from '../system/types.ts';
import type { SiteContext } from './context.ts';
import { portalReaches } from '../portal-reach.ts';

/** A site the portal cannot reach gets no rule: its vhost is closed and never asks the portal. */
export function protectedSiteRules(sites: readonly SiteRecord[], domain: string | null): ProtectedSiteRule[] {
  return sites
    .filter((s) => s.autheliaProtected && portalReaches(s.fqdn, domain))
    .map((s) => ({ fqdn: s.fqdn, allowedUsers: [...s.allowedUsers] }));
}

/** Rewrites the portal's access rules from the records and restarts it (Authelia reads them only at start). */
export async function applyPortalRules(ctx: SiteContext): Promise<void> {
  await ctx.system.authPortal.setAccessRules(protectedSiteRules(ctx.store.sites.value, ctx.config.value.domain));
  await ctx.system.authPortal.restart();
}

/** For operations that already succeeded: a portal failure is logged, not thrown. */
export async function applyPortalRulesOrLog(ctx: SiteContext, why: string): Promise<void> {
  await applyPortalRules(ctx).catch((error: unknown) => ctx.log.warn(`auth portal rules after ${why} failed: ${errorMessage(error)}`));
}
