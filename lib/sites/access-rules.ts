import { errorMessage } from '../errors.ts';
import type { SiteRecord } from '../state/schemas.ts';
import type { ProtectedSiteRule } from '../system/types.ts';
import type { SiteContext } from './context.ts';

export function protectedSiteRules(sites: readonly SiteRecord[]): ProtectedSiteRule[] {
  return sites.filter((s) => s.autheliaProtected).map((s) => ({ fqdn: s.fqdn, allowedUsers: [...s.allowedUsers] }));
}

/** Rewrites the portal's access rules from the records and restarts it (Authelia reads them only at start). */
export async function applyPortalRules(ctx: SiteContext): Promise<void> {
  await ctx.system.authPortal.setAccessRules(protectedSiteRules(ctx.store.sites.value));
  await ctx.system.authPortal.restart();
}

/** For operations that already succeeded: a portal failure is logged, not thrown. */
export async function applyPortalRulesOrLog(ctx: SiteContext, why: string): Promise<void> {
  await applyPortalRules(ctx).catch((error: unknown) => ctx.log.warn(`auth portal rules after ${why} failed: ${errorMessage(error)}`));
}
