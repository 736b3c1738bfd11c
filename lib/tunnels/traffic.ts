import { z } from 'zod';
import { AppError } from '../errors.ts';
import type { Store } from '../state/store.ts';
import { TrafficSeries, type TrafficMeter } from '../traffic/meter.ts';
import { tunnelTrafficName } from '../traffic/names.ts';
import { findTunnel, TUNNEL_NOT_FOUND } from './context.ts';

export const TunnelTraffic = z.object({
  id: z.string(),
  /** the last 60 minutes, oldest first, the current minute last */
  minutes: TrafficSeries,
});
export type TunnelTraffic = z.infer<typeof TunnelTraffic>;

/** One tunnel's last hour minute by minute (requests, errors, p50/p95), for its page's chart. */
export function tunnelTraffic(store: Store, meter: Pick<TrafficMeter, 'series'>, id: string): TunnelTraffic {
  const tunnel = findTunnel({ store }, id);
  if (!tunnel) throw new AppError(404, TUNNEL_NOT_FOUND);
  return { id, minutes: meter.series(tunnelTrafficName(tunnel.fqdn)) };
}
