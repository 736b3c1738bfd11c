import { AppError } from '../errors.ts';
import { NGINX_FAILED, STATE_FAILED, runStepsOrFail, type Step } from '../steps.ts';
import { applyPortalRulesOrLog } from './access-rules.ts';
import { findSite, putSiteVhost, siteVhost, SITE_NOT_FOUND, type SiteContext } from './context.ts';

/**
 * The spec's order: vhost (when one was written), directory with its files, record. The directory
 * cannot come back, so a failed save after it leaves a record without files, which a second DELETE
 * removes; the certificate stays, as for tunnels.
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
      undo: () => proxy.apply([putSiteVhost(site, domain)]),
    };
    await runStepsOrFail('Failed to delete site', [
      ...(site.certIssued ? [vhost] : []),
      { failure: 'Directory removal failed', run: () => siteStorage.remove(id) },
      {
        failure: STATE_FAILED,
        run: () =>
          ctx.store.sites.update((list) => {
            const index = list.findIndex((s) => s.id === id);
            if (index >= 0) list.splice(index, 1);
          }),
      },
    ]);
    if (site.autheliaProtected) await applyPortalRulesOrLog(ctx, `deleting site ${site.name}`);
  });
}
