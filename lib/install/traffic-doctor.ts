// doctor's look at the traffic port: a line the panel could not take in time is dropped by the
// kernel when the socket's buffer is full, and only /proc/net/udp's drops column says so (read by
// lib/system/common/proc-net.ts). The buffer is capped by net.core.rmem_max, the host's own
// setting, which the installer leaves alone (docs/decisions.md, Traffic meter (Scale)), so doctor
// names it and what it holds.
import { readFile } from 'node:fs/promises';
import { parseUdpSocketDrops } from '../system/common/proc-net.ts';
import { readUdpTables } from '../system/common/tcp-listeners.ts';
import { KERNEL_BYTES_PER_DATAGRAM, RECEIVE_BUFFER_BYTES } from '../traffic/receiver.ts';

export interface TrafficFinding {
  ok: boolean;
  message: string;
  fix?: string;
}

/**
 * The kernel's drops on the UDP socket bound to `port`, summed over the tables given (udp, udp6);
 * null when no socket holds the port.
 */
export function udpDrops(tables: string[], port: number): number | null {
  const sockets = tables.flatMap((table) => parseUdpSocketDrops(table)).filter((socket) => socket.port === port);
  return sockets.length === 0 ? null : sockets.reduce((sum, socket) => sum + socket.drops, 0);
}

export interface TrafficProbe {
  /** /proc/net/udp and udp6, the ones that could be read */
  udpTables(): Promise<string[]>;
  /** net.core.rmem_max in bytes; null when unreadable */
  rmemMax(): Promise<number | null>;
}

export const procTrafficProbe: TrafficProbe = {
  udpTables: async () => (await readUdpTables()) ?? [],
  rmemMax: async () => {
    const n = Number((await readFile('/proc/sys/net/core/rmem_max', 'utf8').catch(() => '')).trim());
    return Number.isInteger(n) && n > 0 ? n : null;
  },
};

/** `trafficPort`: nginx.trafficPort (null: no traffic log); `panelUnit` for the fix's restart. */
export async function trafficFindings(trafficPort: number | null, panelUnit: string, probe: TrafficProbe = procTrafficProbe): Promise<TrafficFinding> {
  if (trafficPort === null) return { ok: true, message: 'no traffic log (nginx.trafficPort is off)' };
  const [tables, cap] = await Promise.all([probe.udpTables(), probe.rmemMax()]);
  // the kernel doubles what a socket asks, up to twice the cap
  const lines = cap === null ? null : Math.floor((2 * Math.min(cap, RECEIVE_BUFFER_BYTES)) / KERNEL_BYTES_PER_DATAGRAM);
  const holds = cap === null ? 'net.core.rmem_max unreadable' : `net.core.rmem_max ${cap} bytes: the port holds about ${lines} lines between the panel's reads`;
  const drops = udpDrops(tables, trafficPort);
  if (drops === null) return { ok: true, message: `no socket on the traffic port ${trafficPort} (the panel is not running); ${holds}` };
  if (drops > 0) {
    return {
      ok: false,
      message: `the kernel dropped ${drops} traffic line${drops === 1 ? '' : 's'} on port ${trafficPort} since the panel opened it (its buffer was full); ${holds}`,
      fix: `raise the cap for good (docs/operations.md): echo 'net.core.rmem_max = ${RECEIVE_BUFFER_BYTES}' > /etc/sysctl.d/60-relay-panel-traffic.conf && sysctl --load /etc/sysctl.d/60-relay-panel-traffic.conf && systemctl restart ${panelUnit}`,
    };
  }
  return { ok: true, message: `no traffic line dropped on port ${trafficPort} since the panel opened it; ${holds}` };
}
