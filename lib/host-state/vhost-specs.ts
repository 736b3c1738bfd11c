// Every kind of vhost the box serves, each built from what calls for it: the installer's two, the
// stack's three under the base domain, a tunnel's and a site's. A new kind is added here and to the
// desired host state (desired.ts), and nowhere else.
import { stackHosts } from '../stack-hosts.ts';
import { portalReaches } from '../portal-reach.ts';
import type { SiteRecord, TunnelRecord } from '../state/schemas.ts';
import type { VhostSpec } from '../system/types.ts';
import { certOfSpec, sharedByDomain, sharedLineage, type CertModeConfig } from './wildcard-lineage.ts';

/** The panel on the box's IP address (a self-signed certificate), written by install; 2FA unlinks it. */
export const IP_PANEL_VHOST: VhostSpec = { kind: 'ip-panel' };

/** The catch-all of ports 80 and 443 (its own self-signed certificate), written by install and with the stack. */
export const DEFAULT_VHOST: VhostSpec = { kind: 'default' };

/** A vhost of the stack; it serves the certificate of its `fqdn`. */
export type StackVhost = Extract<VhostSpec, { kind: 'panel' | 'auth-portal' | 'tunnel-server' }>;

/** The three vhosts onboarding sets up under the base domain. */
export function stackVhosts(domain: string): StackVhost[] {
  const h = stackHosts(domain);
  return [
    { kind: 'panel', fqdn: h.panel },
    { kind: 'auth-portal', fqdn: h.auth },
    { kind: 'tunnel-server', fqdn: h.tunnel },
  ];
}

/**
 * `config`: the base domain and the certificate mode, which decides whether the vhost names the
 * wildcard lineage. A tunnel one label under the domain is shared (its file a route of the
 * `tunnels` vhost, one server for all of them, in either mode), unless it is public: that one keeps
 * a server of its own, which never asks the portal.
 */
export function appVhost(tunnel: Pick<TunnelRecord, 'fqdn' | 'port' | 'access'>, config?: CertModeConfig): VhostSpec {
  const open = tunnel.access?.mode === 'public';
  const cert = config ? certOfSpec(tunnel.fqdn, config) : {};
  return {
    kind: 'app',
    fqdn: tunnel.fqdn,
    port: tunnel.port,
    ...(open ? { public: true as const } : {}),
    ...cert,
    ...(config && !open && sharedByDomain(tunnel.fqdn, config) ? { shared: true as const } : {}),
  };
}

/**
 * The one server of every shared tunnel under `*.<domain>`: with the domain's wildcard lineage, or
 * in per-name mode (`sharedLineage` null) each name's own certificate from root's map.
 */
export function tunnelsVhost(domain: string, config: CertModeConfig): VhostSpec {
  return sharedLineage(config) === domain ? { kind: 'tunnels', fqdn: domain } : { kind: 'tunnels', fqdn: domain, sni: true };
}

/**
 * Every site's portal is the box's own: custom domains have no `auth.` of their own. A protected
 * site the portal cannot reach (stored by an older release, or restored) is closed: 403 to every
 * visitor, never its files unprotected and never the 500 Authelia's refusal would make.
 */
export function siteVhost(site: SiteRecord, domain: string | null, config?: CertModeConfig): VhostSpec {
  const closed = site.autheliaProtected && !portalReaches(site.fqdn, domain);
  return {
    kind: 'site',
    fqdn: site.fqdn,
    root: site.rootPath,
    spaMode: site.spaMode,
    protected: site.autheliaProtected,
    ...(closed ? { closed: true as const } : {}),
    ...(config ? certOfSpec(site.fqdn, config) : {}),
  };
}
