import { errorMessage } from '../errors.ts';
import { putSiteVhost, type SiteDeps } from './context.ts';
import { portalReaches } from './portal-reach.ts';

/**
 * At start: a live protected site the portal cannot reach (stored by a release before issue 31,
 * whose vhost asks the portal and so answers 500) gets its closed vhost, 403 to every visitor, and
 * a warning that names it. Its record is left as it is: the operator turns protection off to open it.
 */
export async function closeUnreachableSites(deps: SiteDeps): Promise<string[]> {
  const { domain } = deps.config.value;
  const sites = deps.store.sites.value.filter((s) => s.certIssued && s.autheliaProtected && !portalReaches(s.fqdn, domain));
  if (sites.length === 0) return [];
  try {
    await deps.system.proxy.apply(sites.map((site) => putSiteVhost(site, domain)));
  } catch (error) {
    deps.log.warn(`closing protected sites outside the portal's domain failed: ${errorMessage(error)}`);
    return [];
  }
  for (const site of sites) {
    deps.log.warn(`site ${site.fqdn}: portal protection cannot work outside ${domain}, so it answers 403 to everyone; turn its protection off to open it`);
  }
  return sites.map((s) => s.fqdn);
}
