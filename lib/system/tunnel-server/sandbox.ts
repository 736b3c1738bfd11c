// Sandbox tunnel server: the same authfile and host key the host writes, nothing run.
import { AuthfileStore } from './authfile.ts';
import { ensureHostKey } from './host-key.ts';
import { watchedHostKeyFingerprint } from './host-key-watch.ts';
import { grantOnly } from './revoked-sessions.ts';
import { loopbackSessions } from './loopback-listeners.ts';
import { KERNEL_SOCKET_TABLES, type SocketTables } from '../common/tcp-listeners.ts';
import type { TunnelServerAdapter } from '../types.ts';
import type { SandboxControls } from '../sandbox/controls.ts';
import { sandboxPaths } from '../sandbox/paths.ts';

/** `sockets`: where a client's session is looked for (the kernel's tables; the testing kit's own table). */
export function createSandboxTunnelServer(dataDir: string, controls: SandboxControls, sockets: SocketTables = KERNEL_SOCKET_TABLES): TunnelServerAdapter {
  const dir = sandboxPaths(dataDir).chisel;
  // no chisel reads the file as it is rewritten (a test that runs one writes through a store of
  // its own), so rewrites are not spaced: unit tests waited the gap out in real time
  const store = new AuthfileStore(dir, { rewriteGapMs: 0 });
  const readFingerprint = watchedHostKeyFingerprint(dir);
  return {
    async install() {
      await store.credential();
      await store.ensureAuthfile();
      const key = await ensureHostKey(dir);
      controls.setServiceStatus('tunnel-server', 'active');
      controls.record('tunnelServer.install');
      controls.appendLog('tunnel-server', `chisel: server: Fingerprint ${key.fingerprint}`);
      controls.appendLog('tunnel-server', 'chisel: server listening on 127.0.0.1:9090 (sandbox)');
    },
    async setAllowedPorts(ports) {
      await grantOnly(store, ports, async (live) => {
        // a listener on the relay's loopback plays a connected client's session
        controls.record('tunnelServer.restart', { endedPorts: live });
        controls.appendLog('tunnel-server', `chisel: restarted to end the sessions of revoked ports ${live.join(', ')} (sandbox)`);
      }, sockets);
      controls.record('tunnelServer.setAllowedPorts', { ports: [...ports] });
      controls.appendLog('tunnel-server', `chisel: authfile reloaded (${ports.length} ports)`);
    },
    allowedPorts: () => store.allowedPorts(),
    // nothing runs chisel here: a listener or UDP socket on this machine's loopback (a test's, a
    // developer's `nc -l`) plays a client's session, as it does for the revoked sessions above
    connectedPorts: (ports, protocol) => loopbackSessions(ports, protocol, sockets),
    credential: () => store.credential(),
    // the sandbox has no installer: the key is made on first use
    fingerprint: async () => (await readFingerprint()) ?? (await ensureHostKey(dir)).fingerprint,
  };
}
