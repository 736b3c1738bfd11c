// The switch's vhost step: in wildcard mode every tunnel the wildcard covers is served by one shared
// server (the `tunnels` vhost, its file a route each), so turning the mode on writes that server
// before the tunnels move into it, and turning it off moves them out before the server goes. Each
// leaves the vhosts as they were when it fails, so no vhost names a certificate that is not there.
import { tunnelsVhost } from '../../host-state/vhost-specs.ts';
import type { ProxyAdapter, VhostSpec } from '../../system/types.ts';

type Proxy = Pick<ProxyAdapter, 'apply' | 'refresh' | 'vhostName'>;

/** Rewrites the served vhosts; none before the first tunnel or site (a switch during onboarding). */
export async function refreshServed(proxy: Pick<ProxyAdapter, 'refresh'>, specs: VhostSpec[]): Promise<void> {
  if (specs.length > 0) await proxy.refresh(specs);
}

/** The shared server of `lineage` written, then the served vhosts rewritten as `specs` (the wildcard mode's). */
export async function shareTunnels(proxy: Proxy, lineage: string, specs: VhostSpec[]): Promise<void> {
  const server = tunnelsVhost(lineage);
  await proxy.apply([{ op: 'put', spec: server, enabled: true }]);
  try {
    await refreshServed(proxy, specs);
  } catch (e) {
    await proxy.apply([{ op: 'remove', name: proxy.vhostName(server) }]).catch(() => {});
    throw e;
  }
}

/** The served vhosts rewritten as `specs` (each with a server of its own again), then the shared server removed. */
export async function unshareTunnels(proxy: Proxy, lineage: string, specs: VhostSpec[], before: VhostSpec[]): Promise<void> {
  await refreshServed(proxy, specs);
  try {
    await proxy.apply([{ op: 'remove', name: proxy.vhostName(tunnelsVhost(lineage)) }]);
  } catch (e) {
    await refreshServed(proxy, before).catch(() => {});
    throw e;
  }
}
