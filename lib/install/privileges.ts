// How the panel reaches root: not at all, but through the root helper service (lib/root-helper).
// systemd holds the helper's Unix socket (root:<panel group> 0660) and starts the helper, as
// root, at the first request; the helper takes one strict JSON request per connection and decides
// every path and binary from its own root-owned configuration. The panel's unit can then forbid
// every way to gain a privilege (NoNewPrivileges and the rest: panel-unit.ts).
import { renderUnit } from '../system/host/units.ts';

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
 * gets must leave those: no home directories, no kernel knobs, no new privileges for what it runs.
 */
export function renderRootHelperService(o: { node: string; server: string; config: string }): string {
  return renderUnit({
    description: 'relay-panel root helper (vhosts, nginx test and reload, the box\'s units)',
    execStart: `${o.node} ${o.server} root-helper --config ${o.config}`,
    socket: `${ROOT_HELPER_UNIT}.socket`,
    hardening: [
      'NoNewPrivileges=yes',
      'ProtectHome=yes',
      'PrivateTmp=yes',
      'ProtectKernelTunables=yes',
      'ProtectKernelModules=yes',
      'ProtectKernelLogs=yes',
      'ProtectClock=yes',
      'RestrictRealtime=yes',
      'RestrictNamespaces=yes',
      'LockPersonality=yes',
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
