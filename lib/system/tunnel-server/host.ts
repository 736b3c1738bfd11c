// Host tunnel server: pinned chisel, a systemd unit, and the authfile chisel reloads by itself.
import { AuthfileStore } from './authfile.ts';
import { ensureHostKey, hostKeyPath } from './host-key.ts';
import { watchedHostKeyFingerprint } from './host-key-watch.ts';
import { grantOnly } from './revoked-sessions.ts';
import { loopbackSessions } from './loopback-listeners.ts';
import { serviceUser, type SystemConfig } from '../config.ts';
import type { TunnelServerAdapter } from '../types.ts';
import { ensureProgram } from '../pinned/provided-binary.ts';
import type { RootActions } from '../root/root-actions.ts';
import { installUnit } from '../systemd/unit-install.ts';
import { renderChiselUnit } from '../systemd/units.ts';

/**
 * chisel's unit as this configuration wants it: the installer writes it as root and the panel's
 * provisioning renders it again to compare (installUnit), so both call this.
 */
export function chiselUnit(config: SystemConfig): string {
  return renderChiselUnit({
    binary: config.binaries.chisel,
    port: config.ports.tunnelServer,
    authfile: new AuthfileStore(config.chisel.dir).authfile,
    keyfile: hostKeyPath(config.chisel.dir),
    user: serviceUser(config, 'tunnel-server'),
  });
}

const missingKey = (path: string) =>
  `the tunnel server's host key ${path} is missing: put it back from a backup, or run relay-panel install to make a new one (every client must then pin its new fingerprint)`;

export function createHostTunnelServer(config: SystemConfig, root: RootActions): TunnelServerAdapter {
  const store = new AuthfileStore(config.chisel.dir);
  const readFingerprint = watchedHostKeyFingerprint(config.chisel.dir);
  return {
    async install() {
      await ensureProgram({ name: 'chisel', ...config.chisel.release }, config.binaries.chisel, { timeoutMs: config.timeouts.downloadMs });
      await store.credential();
      await store.ensureAuthfile();
      // the installer made the key already; a box whose key is missing gets one before the unit names it
      await ensureHostKey(config.chisel.dir);
      await installUnit(config, root, 'tunnel-server', chiselUnit(config));
    },
    // chisel watches the authfile: a restart (which drops every connected tunnel) only when a
    // revoked port's session is still up
    setAllowedPorts: (ports) => grantOnly(store, ports, () => root.controlUnit('tunnel-server', 'restart')),
    allowedPorts: () => store.allowedPorts(),
    connectedPorts: (ports, protocol) => loopbackSessions(ports, protocol),
    credential: () => store.credential(),
    // a read never makes the key: a new one would silently break every client that pinned the old
    async fingerprint() {
      const current = await readFingerprint();
      if (current === null) throw new Error(missingKey(hostKeyPath(config.chisel.dir)));
      return current;
    },
  };
}
