// chisel checks the authfile only when a session opens: a client connected before its port was
// revoked keeps its reverse listener on 127.0.0.1:<port> until it reconnects (measured with chisel
// 1.9.0). So a tunnel disabled or deleted while its client is connected stayed reachable on the
// relay's loopback and held its port. After a grant change, a revoked port that still has a
// listener means such a session; the tunnel server is then restarted, which ends every session
// (clients reconnect by themselves, and the revoked remote is refused).
import type { AuthfileStore } from './authfile.ts';
import { portOpen } from './port-probe.ts';

const PROBE_MS = 500;

/** Ports in `before` but not in `after` on which something still listens. */
export async function revokedLivePorts(before: number[], after: number[], probe = portOpen): Promise<number[]> {
  const kept = new Set(after);
  const revoked = before.filter((p) => !kept.has(p));
  const live = await Promise.all(revoked.map(async (port) => ((await probe('127.0.0.1', port, PROBE_MS)) ? port : null)));
  return live.filter((p): p is number => p !== null);
}

/** Grants exactly `ports`, then ends the sessions that still hold a revoked one. */
export async function grantOnly(store: AuthfileStore, ports: number[], endSessions: (live: number[]) => Promise<void>): Promise<void> {
  const before = await store.allowedPorts();
  await store.setAllowedPorts(ports);
  const live = await revokedLivePorts(before, ports);
  if (live.length) await endSessions(live);
}
