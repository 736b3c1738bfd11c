// How the panel reaches root: not at all, but through the root helper service (lib/root-helper).
// systemd holds the helper's Unix socket (root:<panel group> 0660) and starts the helper, as
// root, at the first request; the helper takes one strict JSON request per connection and decides
// every path and binary from its own root-owned configuration. The panel's unit can then forbid
// every way to gain a privilege (NoNewPrivileges and the rest: panel-unit.ts).
import { dirname } from 'node:path';
import { routesDirOf, streamsDirOf, systemConfig, type SystemConfig } from '../system/config.ts';
import { renderUnit } from '../system/systemd/units.ts';

export const ROOT_HELPER_UNIT = 'relay-panel-root';

export function renderRootHelperSocket(o: { socket: string; group: string }): string {
  return `# managed by relay-panel
[Unit]
Description=relay-panel root helper socket (the panel's only way to root)

[Socket]
ListenStream=${o.socket}
SocketUser=root
SocketGroup=${o.group}
SocketMode=0660
RemoveOnStop=yes

[Install]
WantedBy=sockets.target
`;
}

/**
 * The helper runs as root (it writes vhosts and drives nginx and systemd), so what sandboxing it
 * gets must leave exactly those, and no more:
 * - it writes only the vhost directories and root's TLS copies (`nginx`, from the helper's
 *   configuration); the nginx it runs (`nginx -t` opens every log for writing, makes its temp
 *   directories as www-data's, and creates or opens its pid file read-write: Debian's
 *   /run/nginx.pid, which a bind of the file itself would pin to the inode of the nginx that ran
 *   when the helper started) gets /var/log/nginx, /var/lib/nginx and /run, /run/systemd excepted;
 *   systemctl's requests are carried out by systemd itself, which needs nothing written here;
 * - its capabilities: binding 80/443 (`nginx -t` binds every listen it tests), reading the panel's
 *   0600 keys to copy them and writing www-data's logs (DAC), and chown/chmod of nginx's temp
 *   directories; systemd checks a caller on its socket by uid, not by capability (CAP_SYS_ADMIN);
 * - no home directories, devices, kernel knobs, clock, hostname or new privileges, and the system
 *   calls of an ordinary service (a refused one fails with EPERM rather than killing the helper).
 * An operator's vhost that logs outside /var/log/nginx makes `nginx -t` fail here with "Read-only
 * file system": a drop-in `ReadWritePaths=` for that directory is the way out.
 */
export function renderRootHelperService(o: {
  node: string;
  server: string;
  config: string;
  /** what the helper writes (its configuration's nginx section); Debian's defaults when absent */
  nginx?: Pick<SystemConfig['nginx'], 'sitesAvailable' | 'sitesEnabled' | 'streamsDir' | 'tlsDir' | 'errorLog'>;
}): string {
  const nginx = o.nginx ?? systemConfig().nginx;
  // the routes and stream servers too: the helper writes them as it writes the vhosts
  const dirs = [nginx.sitesAvailable, nginx.sitesEnabled, routesDirOf({ nginx }), streamsDirOf({ nginx }), nginx.tlsDir];
  const writable = [...new Set([...dirs, dirname(nginx.errorLog), '/var/log/nginx', '/var/lib/nginx'])];
  return renderUnit({
    description: 'relay-panel root helper (vhosts, nginx test and reload, the box\'s units)',
    execStart: `${o.node} ${o.server} root-helper --config ${o.config}`,
    socket: `${ROOT_HELPER_UNIT}.socket`,
    hardening: [
      'NoNewPrivileges=yes',
      'CapabilityBoundingSet=CAP_NET_BIND_SERVICE CAP_DAC_OVERRIDE CAP_DAC_READ_SEARCH CAP_CHOWN CAP_FOWNER',
      'AmbientCapabilities=',
      'ProtectSystem=strict',
      // `-`: a directory not made yet does not stop the helper (installs make them before it starts)
      `ReadWritePaths=${writable.map((d) => `-${d}`).join(' ')} /run`,
      'ReadOnlyPaths=-/run/systemd',
      'ProtectHome=yes',
      'PrivateTmp=yes',
      'PrivateDevices=yes',
      'ProtectKernelTunables=yes',
      'ProtectKernelModules=yes',
      'ProtectKernelLogs=yes',
      'ProtectControlGroups=yes',
      'ProtectClock=yes',
      'ProtectHostname=yes',
      'ProtectProc=invisible',
      'RestrictRealtime=yes',
      'RestrictNamespaces=yes',
      'RestrictSUIDSGID=yes',
      'LockPersonality=yes',
      'SystemCallFilter=@system-service',
      'SystemCallErrorNumber=EPERM',
      'SystemCallArchitectures=native',
      'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6',
    ],
    // started by its socket at the first request, and again after it exits when idle
    wantedBy: null,
    restart: 'on-failure',
  });
}

/**
 * `root-call nginx-reload`: certbot's deploy hook. Renewals run as root or as the panel's user;
 * either reaches the helper through its socket.
 */
export function renderRootCallLauncher(node: string, server: string, socket: string): string {
  return `#!/bin/sh\n# managed by relay-panel: one request to the root helper (nginx-reload or nginx-test)\nexec ${node} ${server} root-call --socket ${socket} "$@"\n`;
}
