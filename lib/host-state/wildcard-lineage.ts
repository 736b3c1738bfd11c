// Which certificate a name is served with. In wildcard mode, a name exactly one label under the
// base domain is covered by the wildcard lineage (`*.<domain>` matches one label only, RFC 6125);
// every other name (a custom domain, a deeper name) keeps its own certificate through HTTP-01.
// The vhosts name it (vhost-specs.ts); the create steps issue by it (lib/certs/dns01/lineage.ts).
import type { Config } from '../config.ts';

export type CertModeConfig = Pick<Config, 'domain' | 'certificateMode'>;

/** The wildcard lineage that covers `fqdn`, or null when the name needs its own certificate. */
export function wildcardLineageFor(fqdn: string, config: CertModeConfig): string | null {
  // a configuration without the key (built by hand, not parsed) is per-name, as its default says
  const mode = config.certificateMode as CertModeConfig['certificateMode'] | undefined;
  // a lineage of another domain (the domain changed after the switch) covers none of this one's names
  if (mode?.mode !== 'wildcard' || !config.domain || mode.lineage !== config.domain) return null;
  return sharedByDomain(fqdn, config) ? mode.lineage : null;
}

/** The lineage whose `*.<lineage>` serves the shared apps in one server, or null in per-name mode. */
export function sharedLineage(config: CertModeConfig): string | null {
  const mode = config.certificateMode as CertModeConfig['certificateMode'] | undefined;
  return mode?.mode === 'wildcard' && config.domain && mode.lineage === config.domain ? mode.lineage : null;
}

/**
 * Whether the shared server of the base domain serves this name: exactly one label under it, in
 * either mode (with the wildcard's certificate, or per name its own from root's map); a deeper
 * name or a custom domain keeps a server of its own.
 */
export function sharedByDomain(fqdn: string, config: Pick<CertModeConfig, 'domain'>): boolean {
  if (!config.domain || !fqdn.endsWith(`.${config.domain}`)) return false;
  const label = fqdn.slice(0, -(config.domain.length + 1));
  return label.length > 0 && !label.includes('.');
}

/** What a vhost spec names as its certificate: the lineage when it is not the name's own. */
export function certOfSpec(fqdn: string, config: CertModeConfig): { cert: string } | Record<string, never> {
  const lineage = wildcardLineageFor(fqdn, config);
  return lineage ? { cert: lineage } : {};
}
