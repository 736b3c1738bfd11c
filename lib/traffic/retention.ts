// Keeps the meter to the vhosts the panel wrote: the records' tunnels and sites, told to the meter at
// start and at every change of either collection (a request, a restore, a hand edit of the file), so
// a new tunnel's first request is counted and a deleted one's counts leave at once. Only these vhosts
// send traffic lines (templates.ts trafficLog); the stack's own (panel, portal) and the default
// server log none. A disabled tunnel stays known, so its counts of the last hour outlive a disable.
import type { Store } from '../state/store.ts';
import type { TrafficMeter } from './meter.ts';
import { siteTrafficName, streamTrafficName, tunnelTrafficName } from './names.ts';

type Records = Pick<Store, 'tunnels' | 'sites'> & Partial<Pick<Store, 'streams'>>;

/** The traffic names of every tunnel and site in the records. */
export function servedTrafficNames(store: Records): Set<string> {
  const served = new Set<string>();
  for (const tunnel of store.tunnels.value) served.add(tunnelTrafficName(tunnel.fqdn));
  for (const site of store.sites.value) served.add(siteTrafficName(site.fqdn));
  for (const stream of store.streams?.value ?? []) served.add(streamTrafficName(stream));
  return served;
}

/** Tells the meter the served names now and after each change of the records. */
export function followServedVhosts(meter: Pick<TrafficMeter, 'know'>, store: Records): void {
  const tell = () => meter.know(servedTrafficNames(store));
  tell();
  store.tunnels.watch(tell);
  store.sites.watch(tell);
  store.streams?.watch(tell);
}
