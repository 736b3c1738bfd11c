import type * as PromClient from 'prom-client';
import type { StreamStatusItem } from '../tunnels/streams/status.ts';
import type { TrafficMeter } from '../traffic/meter.ts';

/** What the TCP and UDP tunnels' metrics read: their client states (their traffic is in the vhost counters, as `tcp:<port>`). */
export interface StreamSources {
  tunnels: { streams: { status(meter: Pick<TrafficMeter, 'traffic'>): Promise<StreamStatusItem[]> } };
  traffic: Pick<TrafficMeter, 'traffic'>;
}

/** One series per enabled TCP or UDP tunnel, named `<protocol>:<public port>` as its traffic is. */
export function registerStreamMetrics(client: typeof PromClient, registry: PromClient.Registry, sources: StreamSources): void {
  new client.Gauge({
    name: 'relay_stream_tunnel_connected',
    help: 'Whether each enabled TCP or UDP tunnel has its client connected (1) or not (0).',
    labelNames: ['tunnel'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const s of await sources.tunnels.streams.status(sources.traffic)) if (s.enabled) this.set({ tunnel: `${s.protocol}:${s.publicPort}` }, s.connected ? 1 : 0);
    },
  });
}
