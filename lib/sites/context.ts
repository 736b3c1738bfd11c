import type { Clock } from '../clock.ts';
import type { ConfigStore } from '../config.ts';
import type { KeyedLock } from '../keyed-lock.ts';
import type { Logger } from '../log.ts';
import type { SiteRecord } from '../state/schemas.ts';
import type { Store } from '../state/store.ts';
import type { System, VhostChange, VhostSpec } from '../system/types.ts';
import { portalReaches } from './portal-reach.ts';
import type { SiteReservations } from './reservations.ts';

/** The portal's usernames, held unchanged while `task` runs (lib/users/service.ts). */
export interface PortalUserNames {
  whileUnchanged<T>(task: (usernames: ReadonlySet<string>) => Promise<T>): Promise<T>;
}

export interface SiteDeps {
  config: ConfigStore;
  /** a site's allowed users must exist */
  users: PortalUserNames;
  store: Store;
  system: System;
  clock: Clock;
  log: Logger;
}

/** What the site operations share: the app's dependencies plus the in-memory coordination. */
export interface SiteContext extends SiteDeps {
  reservations: SiteReservations;
  /** one change at a time per site id: settings, verify-dns, delete, file uploads and deletes */
  locks: KeyedLock;
}

export const SITE_NOT_FOUND = 'Site not found';

/**
 * Every site's portal is the box's own: custom domains have no `auth.` of their own. A protected
 * site the portal cannot reach (stored by an older release, or restored) is closed: 403 to every
 * visitor, never its files unprotected and never the 500 Authelia's refusal would make.
 */
export function siteVhost(site: SiteRecord, domain: string | null): VhostSpec {
  const closed = site.autheliaProtected && !portalReaches(site.fqdn, domain);
  return {
    kind: 'site',
    fqdn: site.fqdn,
    root: site.rootPath,
    spaMode: site.spaMode,
    protected: site.autheliaProtected,
    ...(closed ? { closed: true as const } : {}),
  };
}

export function putSiteVhost(site: SiteRecord, domain: string | null): VhostChange {
  return { op: 'put', spec: siteVhost(site, domain), enabled: true };
}

export function findSite(ctx: Pick<SiteDeps, 'store'>, id: string): SiteRecord | undefined {
  return ctx.store.sites.get(id);
}
