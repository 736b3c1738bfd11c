import type { Clock } from '../clock.ts';
import type { ConfigStore } from '../config.ts';
import type { KeyedLock } from '../keyed-lock.ts';
import type { Logger } from '../log.ts';
import type { SiteRecord } from '../state/schemas.ts';
import type { Store } from '../state/store.ts';
import type { System, VhostChange, VhostSpec } from '../system/types.ts';
import type { SiteReservations } from './reservations.ts';

export interface SiteDeps {
  config: ConfigStore;
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

/** Every site's portal is the box's own: custom domains have no `auth.` of their own. */
export function siteVhost(site: SiteRecord, domain: string | null): VhostSpec {
  return {
    kind: 'site',
    fqdn: site.fqdn,
    root: site.rootPath,
    spaMode: site.spaMode,
    protected: site.autheliaProtected,
    ...(domain ? { portalFqdn: `auth.${domain}` } : {}),
  };
}

export function putSiteVhost(site: SiteRecord, domain: string | null): VhostChange {
  return { op: 'put', spec: siteVhost(site, domain), enabled: true };
}

export function findSite(ctx: Pick<SiteDeps, 'store'>, id: string): SiteRecord | undefined {
  return ctx.store.sites.value.find((s) => s.id === id);
}
