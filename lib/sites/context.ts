import type { Clock } from '../clock.ts';
import type { ConfigStore } from '../config.ts';
import { siteVhost } from '../host-state/vhost-specs.ts';
import type { CertModeConfig } from '../certs/dns01/lineage.ts';
import type { KeyedLock } from '../keyed-lock.ts';
import type { Logger } from '../log.ts';
import type { SiteRecord } from '../state/schemas.ts';
import type { Store } from '../state/store.ts';
import type { System, VhostChange } from '../system/types.ts';
import type { SharedGate } from '../shared-gate.ts';
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
  /** held shared by a site's create, update and delete, exclusive by a certificate mode switch; the service's own when not given */
  modeGate?: SharedGate;
}

/** What the site operations share: the app's dependencies plus the in-memory coordination. */
export interface SiteContext extends SiteDeps {
  reservations: SiteReservations;
  /** one change at a time per site id: settings, verify-dns, delete, file uploads and deletes */
  locks: KeyedLock;
}

export const SITE_NOT_FOUND = 'Site not found';

/** `config`: the certificate mode, which decides whether the vhost names the wildcard lineage. */
export function putSiteVhost(site: SiteRecord, domain: string | null, config: CertModeConfig): VhostChange {
  return { op: 'put', spec: siteVhost(site, domain, config), enabled: true };
}

export function findSite(ctx: Pick<SiteDeps, 'store'>, id: string): SiteRecord | undefined {
  return ctx.store.sites.get(id);
}
