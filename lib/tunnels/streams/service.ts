import type { StreamRecord } from '../../state/schemas.ts';
import { deleteStream, editStream, setStreamEnabled } from './change.ts';
import type { StreamContext } from './context.ts';
import { createStream } from './create.ts';
import type { StreamCreate, StreamSettings } from './schema.ts';
import { streamStatus, type StreamStatusItem } from './status.ts';
import type { TrafficMeter } from '../../traffic/meter.ts';

const newestFirst = (a: StreamRecord, b: StreamRecord) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0);

/** The TCP and UDP tunnels; built by the tunnel service, whose authfile, port claims and locks they share. */
export class StreamService {
  constructor(readonly ctx: StreamContext) {}

  /** Newest first, optionally of one protocol. */
  list(protocol?: StreamRecord['protocol']): StreamRecord[] {
    // filtered first; reversed before the stable sort so records of one createdAt stay newest first
    return this.ctx.store.streams.value.filter((s) => !protocol || s.protocol === protocol).reverse().sort(newestFirst);
  }

  /** Each one's client state (the tunnel server's sessions, as its adapter tells them) and traffic. */
  async status(meter: Pick<TrafficMeter, 'traffic'>): Promise<StreamStatusItem[]> {
    const streams = this.list();
    const server = this.ctx.system.tunnelServer;
    const connected = (protocol: StreamRecord['protocol']) =>
      server.connectedPorts(streams.filter((s) => s.enabled && s.protocol === protocol).map((s) => s.tunnelPort), protocol);
    const [tcp, udp] = await Promise.all([connected('tcp'), connected('udp')]);
    return streamStatus(streams, { tcp, udp }, meter);
  }

  has(id: string): boolean {
    return this.ctx.store.streams.get(id) !== undefined;
  }

  create(input: StreamCreate): Promise<StreamRecord> {
    return createStream(this.ctx, input);
  }

  setEnabled(id: string, enabled: boolean): Promise<StreamRecord> {
    return setStreamEnabled(this.ctx, id, enabled);
  }

  edit(id: string, input: StreamSettings): Promise<StreamRecord> {
    return editStream(this.ctx, id, input);
  }

  delete(id: string): Promise<void> {
    return deleteStream(this.ctx, id);
  }
}
