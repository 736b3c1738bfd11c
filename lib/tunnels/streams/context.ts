import type { StreamRecord } from '../../state/schemas.ts';
import { KERNEL_SOCKET_TABLES, type SocketTables } from '../../system/common/tcp-listeners.ts';
import type { StreamChange } from '../../system/streams/types.ts';
import { streamSpec } from '../../host-state/desired.ts';
import { streamFileName } from '../../system/streams/render.ts';
import type { TunnelContext } from '../context.ts';
import { byPort, servicePorts, type PortUse } from './ports.ts';

/**
 * What the TCP and UDP tunnel operations share: the HTTP tunnels' context (one authfile, one set
 * of port claims, one lock per id) and the sockets the kernel lists right now.
 */
export interface StreamContext extends TunnelContext {
  liveSockets(): Promise<PortUse['live']>;
}

/** The sockets in use by port, as `tables` (the kernel's unless given) list them. */
export const liveSocketsOf = (tables: SocketTables) => async (): Promise<PortUse['live']> => {
  const [tcp, udp] = await Promise.all([tables.tcp(), tables.udp()]);
  return { tcp: byPort(tcp), udp: byPort(udp) };
};

export const kernelSockets = liveSocketsOf(KERNEL_SOCKET_TABLES);

/** The ports in use as the records, the configuration and the given sockets say. */
export function portUse(ctx: StreamContext, live: PortUse['live']): PortUse {
  const config = ctx.config.value;
  return {
    range: config.streams.publicPorts,
    services: servicePorts(config),
    tunnels: ctx.store.tunnels.value,
    streams: ctx.store.streams.value,
    claimed: (port) => ctx.reservations.hasPort(port),
    live,
  };
}

export const putStream = (record: StreamRecord): StreamChange => ({ op: 'put', spec: streamSpec(record) });
export const removeStream = (record: Pick<StreamRecord, 'protocol' | 'publicPort'>): StreamChange => ({ op: 'remove', name: streamFileName(record) });
