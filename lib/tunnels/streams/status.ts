// A TCP or UDP tunnel's client state and traffic: connected while chisel's reverse listener holds
// the tunnel port on the box's loopback (a TCP listener, or a UDP socket for a UDP tunnel), as for
// an HTTP tunnel; sessions and bytes from the stream server's log lines in the traffic meter.
import { z } from 'zod';
import type { StreamRecord } from '../../state/schemas.ts';
import { Traffic, type TrafficMeter } from '../../traffic/meter.ts';
import { streamTrafficName } from '../../traffic/names.ts';

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

/** The tunnel ports a client's session holds, per protocol (the tunnel server adapter's `connectedPorts`). */
type HeldPorts = Record<'tcp' | 'udp', ReadonlySet<number>>;

export function streamStatus(streams: readonly StreamRecord[], held: HeldPorts, meter: Pick<TrafficMeter, 'traffic'>): StreamStatusItem[] {
  return streams.map((s) => {
    return {
      id: s.id,
      protocol: s.protocol,
      publicPort: s.publicPort,
      port: s.port,
      enabled: s.enabled,
      connected: s.enabled && held[s.protocol].has(s.tunnelPort),
      traffic: meter.traffic(streamTrafficName(s)),
    };
  });
}
