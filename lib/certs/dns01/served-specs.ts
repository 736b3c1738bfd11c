// The vhosts the certificate mode decides about: every tunnel's and every site's that has its
// certificate, rendered for a given mode. A switch rewrites them (proxy.refresh rewrites only the
// files that are there and whose text changes) and, on failure, rewrites them back.
import { desiredTunnels } from '../../host-state/desired.ts';
import { siteVhost } from '../../host-state/vhost-specs.ts';
import type { SiteRecord, TunnelRecord } from '../../state/schemas.ts';
import type { VhostSpec } from '../../system/types.ts';
import { wildcardLineageFor, type CertModeConfig } from './lineage.ts';

export interface ServedRecords {
  tunnels: readonly TunnelRecord[];
  sites: readonly SiteRecord[];
}

export function servedSpecs(records: ServedRecords, config: CertModeConfig): VhostSpec[] {
  return [
    ...desiredTunnels(records.tunnels, config).map((tunnel) => tunnel.spec),
    ...records.sites.filter((site) => site.certIssued).map((site) => siteVhost(site, config.domain, config)),
  ];
}

/** The names a mode leaves to their own certificate that `wildcard` covered: what switching back must issue first. */
export function namesLeavingWildcard(records: ServedRecords, wildcard: CertModeConfig): string[] {
  const names = [...records.tunnels.map((t) => t.fqdn), ...records.sites.filter((s) => s.certIssued).map((s) => s.fqdn)];
  return [...new Set(names.filter((fqdn) => wildcardLineageFor(fqdn, wildcard) !== null))].sort();
}
