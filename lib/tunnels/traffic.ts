import { z } from 'zod';
import { AppError } from '../errors.ts';
import type { Store } from '../state/store.ts';
import { TrafficSeries, type TrafficMeter } from '../traffic/meter.ts';
import { streamTrafficName, tunnelTrafficName } from '../traffic/names.ts';
import { findTunnel, TUNNEL_NOT_FOUND } from './context.ts';

export const TunnelTraffic = z.object({
  id: z.string(),
  /** the last 60 minutes, oldest first, the current minute last */
  minutes: TrafficSeries,
});
export type TunnelTraffic = z.infer<typeof TunnelTraffic>;

/**
 * The meter's name of a tunnel of each kind, undefined when no tunnel of that kind has the id: an
 * HTTP tunnel's vhost (`app:<fqdn>`), a TCP or UDP tunnel's stream server (`tcp:<port>`), whose
 * sessions count as requests and whose session lengths fill the latency buckets.
 */
const NAMES = {
  http: (store: Store, id: string) => {
    const tunnel = findTunnel({ store }, id);
    return tunnel && tunnelTrafficName(tunnel.fqdn);
  },
  stream: (store: Store, id: string) => {
    const stream = store.streams.get(id);
    return stream && streamTrafficName(stream);
  },
} satisfies Record<string, (store: Store, id: string) => string | undefined>;

/** One tunnel's last hour minute by minute (requests, bytes, errors, p50/p95), for its page's chart; 404 for none of that kind. */
export function tunnelTraffic(store: Store, meter: Pick<TrafficMeter, 'series'>, id: string, kind: keyof typeof NAMES = 'http'): TunnelTraffic {
  const name = NAMES[kind](store, id);
  if (name === undefined) throw new AppError(404, TUNNEL_NOT_FOUND);
  return { id, minutes: meter.series(name) };
}
