// Keeps the meter, and so /metrics' vhost series, to the vhosts the store serves: a deleted tunnel's
// or site's counts leave within a minute, and so do names nothing serves (anything local may send
// to the traffic port), which would otherwise hold places under the meter's vhost limit.
import type { Clock } from '../clock.ts';
import type { Store } from '../state/store.ts';
import type { TrafficMeter } from './meter.ts';
import { siteTrafficName, tunnelTrafficName } from './names.ts';

export const RETAIN_EVERY_MS = 60_000;

/** Prunes the meter every RETAIN_EVERY_MS; returns the function that stops it. */
export function retainServedVhosts(meter: Pick<TrafficMeter, 'retain'>, store: Pick<Store, 'tunnels' | 'sites'>, clock: Clock): () => void {
  return clock.every(RETAIN_EVERY_MS, () => {
    const served = new Set<string>();
    for (const tunnel of store.tunnels.value) served.add(tunnelTrafficName(tunnel.fqdn));
    for (const site of store.sites.value) served.add(siteTrafficName(site.fqdn));
    meter.retain(served);
  });
}
