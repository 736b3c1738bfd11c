// Which TCP ports have a listener a connection to 127.0.0.1 reaches: one read of the kernel's socket
// tables (/proc/net/tcp and tcp6), whatever the number of ports asked about; where they cannot be
// read (not Linux), one connect per port.
import { parseTcpListeners, type TcpListener } from '../common/proc-net.ts';
import { portOpen } from '../common/port-probe.ts';
import { KERNEL_SOCKET_TABLES, type SocketTables } from '../common/tcp-listeners.ts';

/** 127.0.0.1 and 0.0.0.0; in tcp6 ::, ::ffff:127.0.0.1 and ::ffff:0.0.0.0 (as canonicalHost writes them). */
const REACHED_FROM_LOOPBACK = new Set(['127.0.0.1', '0.0.0.0', '[::]', '[::ffff:7f00:1]', '[::ffff:0:0]']);

const reached = (listeners: TcpListener[]): number[] => listeners.filter((l) => REACHED_FROM_LOOPBACK.has(l.host)).map((l) => l.port);

/** Listening ports on addresses that 127.0.0.1 reaches, from the text of /proc/net/tcp or tcp6. */
export function parseListeningPorts(table: string): number[] {
  return reached(parseTcpListeners(table));
}

export async function loopbackListening(ports: readonly number[], tables: SocketTables = KERNEL_SOCKET_TABLES): Promise<Set<number>> {
  const listeners = await tables.tcp();
  const wanted = new Set(ports);
  if (listeners) return new Set(reached(listeners).filter((p) => wanted.has(p)));
  const open = await Promise.all([...wanted].map(async (p) => ((await portOpen('127.0.0.1', p, 500)) ? p : null)));
  return new Set(open.filter((p): p is number => p !== null));
}

/**
 * Which of these ports a UDP socket reachable from 127.0.0.1 holds: a UDP tunnel's session (chisel
 * binds its reverse remote `R:127.0.0.1:<port>/udp` as a UDP socket). None where the tables cannot be read.
 */
export async function loopbackUdpBound(ports: readonly number[], tables: SocketTables = KERNEL_SOCKET_TABLES): Promise<Set<number>> {
  const sockets = await tables.udp();
  const wanted = new Set(ports);
  return new Set((sockets ? reached(sockets) : []).filter((p) => wanted.has(p)));
}

/**
 * Which of these ports a tunnel client's session holds on loopback: chisel's reverse listener for
 * a TCP remote, its UDP socket for a `/udp` one. The tunnel server adapters' `connectedPorts`.
 */
export function loopbackSessions(ports: readonly number[], protocol: 'tcp' | 'udp' = 'tcp', tables: SocketTables = KERNEL_SOCKET_TABLES): Promise<Set<number>> {
  return protocol === 'udp' ? loopbackUdpBound(ports, tables) : loopbackListening(ports, tables);
}
