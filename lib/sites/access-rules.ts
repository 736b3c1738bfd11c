import { errorMessage } from '../errors.ts';
import type { SiteContext } from './context.ts';
import { portalRules } from '../host-state/desired.ts';

/** Rewrites the portal's access rules from the records (sites' and tunnels') and restarts it (Authelia reads them only at start). */
export async function applyPortalRules(ctx: SiteContext): Promise<void> {
  await ctx.system.authPortal.setAccessRules(portalRules(ctx.store.sites.value, ctx.config.value.domain, ctx.store.tunnels.value));
  await ctx.system.authPortal.restart();
}

/** For operations that already succeeded: a portal failure is logged, not thrown. */
export async function applyPortalRulesOrLog(ctx: SiteContext, why: string): Promise<void> {
  await applyPortalRules(ctx).catch((error: unknown) => ctx.log.warn(`auth portal rules after ${why} failed: ${errorMessage(error)}`));
}
