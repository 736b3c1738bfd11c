// What the host should look like, computed in one place from the records and the configuration:
// the vhosts written and linked, each tunnel's vhost and link, the vhosts kept in this release's
// templates, the stack onboarding writes, whether the IP panel is linked, the portal's access rules,
// the TCP and UDP tunnels' stream servers and the rule for the tunnel server's ports. Start-up,
// restore, onboarding and the tunnel repair bring the host to it (reconcile.ts, stack.ts,
// lib/tunnels/host-repair.ts) and keep no list of their own, so a new kind of vhost is added here alone.
import type { ConfigStore } from '../config.ts';
import { haveCertificates } from './cert-checks.ts';
import { portalReaches } from '../portal-reach.ts';
import { sharedLineage, wildcardLineageFor, type CertModeConfig } from './wildcard-lineage.ts';
import type { AccessRecord, SiteRecord, StreamRecord, TunnelRecord } from '../state/schemas.ts';
import type { Store } from '../state/store.ts';
import type { CertsAdapter, ProtectedSiteRule, StreamSpec, VhostSpec } from '../system/types.ts';
import { appVhost, DEFAULT_VHOST, IP_PANEL_VHOST, siteVhost, stackVhosts, tunnelsVhost, type StackVhost } from './vhost-specs.ts';

/** What the desired state is computed from. */
export interface HostRecords {
  config: Pick<ConfigStore, 'value'>;
  /** `streams` absent: no TCP or UDP tunnels (the records of a caller that has none) */
  store: Pick<Store, 'sites' | 'tunnels'> & Partial<Pick<Store, 'streams'>>;
  system: { certs: Pick<CertsAdapter, 'has'> };
}

/** One tunnel's vhost: written and linked while the tunnel is enabled, unlinked (file kept) while not. */
export interface DesiredTunnel {
  id: string;
  fqdn: string;
  spec: VhostSpec;
  enabled: boolean;
}

export interface DesiredHost {
  /**
   * Written and linked: the default server, the stack's vhosts, the shared tunnels' server (wildcard
   * mode) and each site, each only when its certificate is there (nginx refuses a whole reload over one missing certificate file). None
   * before onboarding is done.
   */
  served: VhostSpec[];
  /** Every tunnel's vhost; a tunnel vhost that no record names does not stay. */
  tunnels: DesiredTunnel[];
  /**
   * Rewritten where their file is there and this release's templates make other text, links kept
   * as they are: the IP panel, the served vhosts (before onboarding, the default server install
   * wrote) and every tunnel's.
   */
  current: VhostSpec[];
  /** the stream servers of the enabled TCP and UDP tunnels; no other file stays in the streams directory */
  streams: StreamSpec[];
}

export async function desiredHost(records: HostRecords): Promise<DesiredHost> {
  const served = await servedVhosts(records);
  const tunnels = desiredTunnels(records.store.tunnels.value, records.config.value);
  const current = [IP_PANEL_VHOST, ...(served.length ? served : [DEFAULT_VHOST]), ...tunnels.map((tunnel) => tunnel.spec)];
  return { served, tunnels, current, streams: desiredStreams(records.store.streams?.value ?? []) };
}

async function servedVhosts({ config, store, system }: HostRecords): Promise<VhostSpec[]> {
  const { domain, onboarding } = config.value;
  if (onboarding.status !== 'COMPLETED' || !domain) return [];
  const issued = store.sites.value.filter((site) => site.certIssued);
  const [stack, siteCerts] = await Promise.all([
    stackOf(system.certs, domain),
    haveCertificates(system.certs, issued.map((site) => wildcardLineageFor(site.fqdn, config.value) ?? site.fqdn)),
  ]);
  return [
    DEFAULT_VHOST,
    ...stack.flatMap(({ spec, certified }) => (certified ? [spec] : [])),
    ...(await sharedServer(system.certs, config.value, stack[0]!.certified)),
    ...issued.flatMap((site, i) => (siteCerts[i] ? [siteVhost(site, domain, config.value)] : [])),
  ];
}

/** `config`: the certificate mode, which decides whether the vhost names the wildcard lineage. */
export function desiredTunnel(tunnel: TunnelRecord, config?: CertModeConfig): DesiredTunnel {
  return { id: tunnel.id, fqdn: tunnel.fqdn, spec: appVhost(tunnel, config), enabled: tunnel.enabled };
}

export function desiredTunnels(tunnels: readonly TunnelRecord[], config?: CertModeConfig): DesiredTunnel[] {
  return tunnels.map((tunnel) => desiredTunnel(tunnel, config));
}

/** A TCP or UDP tunnel's stream server, as the record says. */
export function streamSpec(record: StreamRecord): StreamSpec {
  const { protocol, publicPort, tunnelPort, allow, proxyProtocol } = record;
  return { protocol, publicPort, tunnelPort, allow, proxyProtocol };
}

/** The enabled TCP and UDP tunnels' servers: a disabled one has none (nothing listens on its port). */
function desiredStreams(streams: readonly StreamRecord[]): StreamSpec[] {
  return streams.filter((s) => s.enabled).map(streamSpec);
}

/** The tunnel server's reverse ports (lib/tunnels/allowed-ports.ts): the enabled tunnels', sorted, each once. */
export function tunnelPorts(tunnels: Iterable<{ port: number; enabled: boolean }>): number[] {
  const ports = new Set<number>();
  for (const tunnel of tunnels) if (tunnel.enabled) ports.add(tunnel.port);
  return [...ports].sort((a, b) => a - b);
}

/**
 * The IP panel (a client certificate is all it asks) is linked only while the panel's 2FA is off:
 * with 2FA on it would be a way in without the second factor. Install and the 2FA toggle both ask here.
 */
export function ipPanelLinked(panel2fa: { enabled: boolean }): boolean {
  return !panel2fa.enabled;
}

/**
 * The portal's access rules: each protected site's (its `access`, else its `allowedUsers`) and each
 * tunnel whose access is not the default. A protected site the portal cannot reach gets none (its
 * vhost is closed and never asks the portal); a public tunnel none (its vhost never asks the portal);
 * a tunnel with the default access none (the portal's default policy is that access).
 */
export function portalRules(sites: readonly SiteRecord[], domain: string | null, tunnels: readonly TunnelRecord[] = []): ProtectedSiteRule[] {
  const forSites = sites
    .filter((site) => site.autheliaProtected && portalReaches(site.fqdn, domain))
    .map((site) => (site.access ? accessRule(site.fqdn, site.access) : { fqdn: site.fqdn, allowedUsers: [...site.allowedUsers] }));
  const forTunnels = tunnels
    .filter((tunnel) => tunnel.access && tunnel.access.mode !== 'public' && !isDefaultAccess(tunnel.access) && portalReaches(tunnel.fqdn, domain))
    .map((tunnel) => accessRule(tunnel.fqdn, tunnel.access!));
  return [...forSites, ...forTunnels];
}

/** What a record without `access` means: every signed-in portal user, no rules. */
export function isDefaultAccess(access: AccessRecord | undefined): boolean {
  return !access || (access.mode === 'authenticated' && access.rules.length === 0);
}

function accessRule(fqdn: string, access: AccessRecord): ProtectedSiteRule {
  const restricted = access.mode === 'restricted';
  return {
    fqdn,
    allowedUsers: restricted ? [...access.users] : [],
    ...(restricted ? { groups: [...access.groups], restricted: true } : {}),
    ...(access.rules.length ? { rules: access.rules.map((rule) => ({ ...rule })) } : {}),
  };
}

/** What provisioning a domain writes, and which of the stack's vhosts may not be linked. */
export interface ProvisionedStack {
  /** the default server (names without a vhost get a 404, never another vhost) and the stack's three */
  vhosts: VhostSpec[];
  /** the stack's vhosts whose certificate is missing or expired: never linked, or every later reload would fail */
  uncertified: StackVhost[];
}

/** `config`: in wildcard mode chosen during onboarding, the shared tunnels' server is written with the stack. */
export async function provisionedStack(certs: Pick<CertsAdapter, 'has'>, domain: string, config?: CertModeConfig): Promise<ProvisionedStack> {
  const stack = await stackOf(certs, domain);
  return {
    vhosts: [DEFAULT_VHOST, ...stack.map(({ spec }) => spec), ...(config ? await sharedServer(certs, config, stack[0]!.certified) : [])],
    uncertified: stack.flatMap(({ spec, certified }) => (certified ? [] : [spec])),
  };
}

/**
 * The shared tunnels' server of the base domain: with the wildcard once its lineage is there; per
 * name with the stack (`panelServed`: the panel's certificate is there), as a name without its own
 * certificate gets the map's fallback.
 */
async function sharedServer(certs: Pick<CertsAdapter, 'has'>, config: CertModeConfig, panelServed: boolean): Promise<VhostSpec[]> {
  if (!config.domain) return [];
  const lineage = sharedLineage(config);
  const served = lineage === null ? panelServed : await certs.has(lineage);
  return served ? [tunnelsVhost(config.domain, config)] : [];
}

async function stackOf(certs: Pick<CertsAdapter, 'has'>, domain: string): Promise<Array<{ spec: StackVhost; certified: boolean }>> {
  const specs = stackVhosts(domain);
  const certified = await haveCertificates(certs, specs.map((spec) => spec.fqdn));
  return specs.map((spec, i) => ({ spec, certified: certified[i]! }));
}

export interface HostRepairReport {
  /** vhosts removed because no record names them */
  orphans: string[];
  /** tunnel ids whose vhost was rewritten, relinked or unlinked */
  repaired: string[];
  /** what could not be repaired, one line each */
  failures: string[];
}
