// The host, as the domain services see it: one adapter per thing the box runs, each declared in its
// own folder beside its host implementation (the real program) and its sandbox one (played inside dataDir).
import type { ProxyAdapter } from './proxy/types.ts';
import type { CertsAdapter } from './certs/types.ts';
import type { TunnelServerAdapter } from './tunnel-server/types.ts';
import type { AuthPortalAdapter } from './auth-portal/types.ts';
import type { ServicesAdapter } from './services/types.ts';
import type { DnsAdapter } from './dns/types.ts';
import type { StatsAdapter } from './stats/types.ts';
import type { PkiAdapter } from './pki/types.ts';
import type { SiteStorageAdapter } from './site-storage/types.ts';
import type { PackagesAdapter } from './packages/types.ts';
import type { StreamProxyAdapter } from './streams/types.ts';

export * from './errors.ts';
export * from './proxy/types.ts';
export * from './certs/types.ts';
export * from './tunnel-server/types.ts';
export * from './auth-portal/types.ts';
export * from './services/types.ts';
export * from './dns/types.ts';
export * from './stats/types.ts';
export * from './pki/types.ts';
export * from './site-storage/types.ts';
export * from './packages/types.ts';
export * from './streams/types.ts';

export interface System {
  proxy: ProxyAdapter;
  certs: CertsAdapter;
  tunnelServer: TunnelServerAdapter;
  authPortal: AuthPortalAdapter;
  services: ServicesAdapter;
  dns: DnsAdapter;
  stats: StatsAdapter;
  pki: PkiAdapter;
  siteStorage: SiteStorageAdapter;
  packages: PackagesAdapter;
  /** the TCP and UDP tunnels' servers in nginx's stream module */
  streams: StreamProxyAdapter;
}
