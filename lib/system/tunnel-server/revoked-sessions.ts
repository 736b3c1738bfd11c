// chisel checks the authfile only when a session opens: a client connected before its port was
// revoked keeps its reverse listener on 127.0.0.1:<port> until it reconnects (measured with chisel
// 1.9.0). So a tunnel disabled or deleted while its client is connected stayed reachable on the
// relay's loopback and held its port. After a grant change, a revoked port that still has a
// listener means such a session; the tunnel server is then restarted, which ends every session
// (clients reconnect by themselves, and the revoked remote is refused). chisel refuses a session
// whole when any one of its remotes is not granted, so agent-config gives a client session per
// tunnel (client-args.ts clientSessions): only the revoked tunnel's session stays out.
import type { AuthfileStore } from './authfile.ts';
import { KERNEL_SOCKET_TABLES, type SocketTables } from '../common/tcp-listeners.ts';
import { loopbackListening, loopbackUdpBound } from './loopback-listeners.ts';

/** Grants exactly `ports`, then ends the sessions that still hold a revoked one. */
export async function grantOnly(store: AuthfileStore, ports: number[], endSessions: (live: number[]) => Promise<void>, tables: SocketTables = KERNEL_SOCKET_TABLES): Promise<void> {
  // the grants before, read by the write itself; none when it changed nothing (so revoked nothing)
  const before = await store.setAllowedPorts(ports);
  if (before === null) return;
  const kept = new Set(ports);
  const revoked = before.filter((p) => !kept.has(p));
  if (revoked.length === 0) return;
  // a UDP tunnel's session holds its port as a UDP socket; the grant is the same pattern (authfile.ts)
  const [tcp, udp] = await Promise.all([loopbackListening(revoked, tables), loopbackUdpBound(revoked, tables)]);
  const live = new Set([...tcp, ...udp]);
  if (live.size) await endSessions([...live].sort((x, y) => x - y));
}
