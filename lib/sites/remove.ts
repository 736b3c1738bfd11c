import { restoreSiteGrants, withdrawSiteGrants, type SiteGrant } from '../certs/site-grants.ts';
import { AppError, errorMessage } from '../errors.ts';
import { NGINX_FAILED, STATE_FAILED, runStepsOrFail, type Step } from '../steps.ts';
import { applyPortalRulesOrLog } from './access-rules.ts';
import { siteVhost } from '../host-state/vhost-specs.ts';
import { findSite, putSiteVhost, SITE_NOT_FOUND, type SiteContext } from './context.ts';

/** Agents lose the site's name before anything that cannot be undone; a failure after gives it back. */
function withdrawGrants(ctx: SiteContext, name: string): Step {
  let withdrawn: SiteGrant[] = [];
  return {
    failure: 'Agent access removal failed',
    run: async () => void (withdrawn = await withdrawSiteGrants(ctx.store.agents, name)),
    undo: () => restoreSiteGrants(ctx.store.agents, name, withdrawn),
  };
}

/**
 * The record goes, and the grants are withdrawn again in the same tick: one given while the
 * directory was being removed (the name still named a site then) cannot outlive the site, and
 * none can come after. Only the record's save decides the step: once it is on disk, a failure
 * here must not let the undo give the grants back.
 */
async function removeRecord(ctx: SiteContext, id: string, name: string): Promise<void> {
  const removed = ctx.store.sites.edit((sites) => sites.delete(id));
  const late = withdrawSiteGrants(ctx.store.agents, name).catch((error: unknown) =>
    ctx.log.warn(`withdrawing agents' grants of deleted site ${name} failed: ${errorMessage(error)}`),
  );
  await removed;
  await late;
}

/**
 * The spec's order: vhost (when one was written), directory with its files, record; agents' grants
 * of the name go before the directory. The directory cannot come back, so a failed save after it
 * leaves a record without files, which a second DELETE removes; the certificate stays, as for
 * tunnels.
 */
export function deleteSite(ctx: SiteContext, id: string): Promise<void> {
  return ctx.locks.run(id, async () => {
    const site = findSite(ctx, id);
    if (!site) throw new AppError(404, SITE_NOT_FOUND);
    const { proxy, siteStorage } = ctx.system;
    const { domain } = ctx.config.value;
    const vhost: Step = {
      failure: NGINX_FAILED,
      run: () => proxy.apply([{ op: 'remove', name: proxy.vhostName(siteVhost(site, domain)) }]),
      undo: () => proxy.apply([putSiteVhost(site, domain, ctx.config.value)]),
    };
    await runStepsOrFail('Failed to delete site', [
      ...(site.certIssued ? [vhost] : []),
      withdrawGrants(ctx, site.name),
      { failure: 'Directory removal failed', run: () => siteStorage.remove(id) },
      { failure: STATE_FAILED, run: () => removeRecord(ctx, id, site.name) },
    ]);
    if (site.autheliaProtected) await applyPortalRulesOrLog(ctx, `deleting site ${site.name}`);
  });
}
