// A TCP or UDP tunnel's client state and traffic: connected while chisel's reverse listener holds
// the tunnel port on the box's loopback (a TCP listener, or a UDP socket for a UDP tunnel), as for
// an HTTP tunnel; sessions and bytes from the stream server's log lines in the traffic meter.
import { z } from 'zod';
import type { StreamRecord } from '../../state/schemas.ts';
import { Traffic, type TrafficMeter } from '../../traffic/meter.ts';
import { streamTrafficName } from '../../traffic/names.ts';
import type { PortUse } from './ports.ts';

export const StreamStatusItem = z.object({
  id: z.string(),
  protocol: z.enum(['tcp', 'udp']),
  publicPort: z.number().int(),
  /** the client machine's port */
  port: z.number().int(),
  enabled: z.boolean(),
  /** a client session holds the tunnel's listener on the box's loopback */
  connected: z.boolean(),
  /** sessions (as `requests`), bytes from and to the sources, 502s when no client listened */
  traffic: Traffic,
});
export type StreamStatusItem = z.infer<typeof StreamStatusItem>;

const LOOPBACK = /^(127\.0\.0\.1|0\.0\.0\.0|\[::\]|\[::ffff:7f00:1\]|\[::ffff:0:0\]):\d+$/;

export function streamStatus(streams: readonly StreamRecord[], live: PortUse['live'], meter: Pick<TrafficMeter, 'traffic'>): StreamStatusItem[] {
  return streams.map((s) => {
    const holder = live[s.protocol]?.get(s.tunnelPort);
    return {
      id: s.id,
      protocol: s.protocol,
      publicPort: s.publicPort,
      port: s.port,
      enabled: s.enabled,
      connected: s.enabled && holder !== undefined && LOOPBACK.test(holder),
      traffic: meter.traffic(streamTrafficName(s)),
    };
  });
}
