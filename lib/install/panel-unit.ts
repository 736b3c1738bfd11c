// The panel's systemd unit: its own user, systemd's full sandbox for an unprivileged service, writes
// only where it keeps state. It has no way to root but the root helper's socket (privileges.ts).
import { readWritePaths, renderUnit, unprivilegedSandbox } from '../system/systemd/units.ts';
import { snapshotFiles } from '../startup-snapshot.mjs';

/** Where the installed panel keeps its code cache (systemd's CacheDirectory=relay-panel). */
const PANEL_CODE_CACHE = '/var/cache/relay-panel/server.mjs.code-cache';

export interface PanelUnitOptions {
  user: string;
  node: string;
  server: string;
  configFile: string;
  /** directories the panel writes (configuration, data, vhosts, ACME, chisel, Authelia, sites) */
  writable: string[];
  /** the socket unit that listens for it (`relay-panel.socket`) */
  socket: string;
}

/**
 * systemd listens on the panel's loopback port and hands the socket to each panel process
 * (LISTEN_FDS): during a restart or an upgrade connections wait in the socket's queue for the new
 * process instead of being refused, so nginx never answers 502 for a switch.
 */
export function renderPanelSocket(o: { host: string; port: number; service: string }): string {
  const address = o.host.includes(':') ? `[${o.host}]` : o.host;
  return `# managed by relay-panel
[Unit]
Description=relay-panel listening socket (kept open across panel restarts)

[Socket]
ListenStream=${address}:${o.port}
Service=${o.service}
NoDelay=true

[Install]
WantedBy=sockets.target
`;
}

export function renderPanelUnit(o: PanelUnitOptions): string {
  return renderUnit({
    description: 'relay-panel management service',
    // the release's start script (lib/startup-snapshot.mjs) passes lib/node-flags.ts's flags and the
    // startup snapshot when it was made by this node (steps/snapshot.ts), else runs server.mjs alone
    execStart: [snapshotFiles(o.server).startScript, '--config', o.configFile].join(' '),
    hardening: [
      `User=${o.user}`,
      `Group=${o.user}`,
      'Environment=NODE_ENV=production',
      `Environment=RELAY_PANEL_NODE=${o.node}`,
      // the launcher's V8 code cache (lib/code-cache.ts): the release is root's, read-only to the
      // panel, so the cache lives in a directory systemd makes for the panel's user
      'CacheDirectory=relay-panel',
      `Environment=RELAY_PANEL_CODE_CACHE=${PANEL_CODE_CACHE}`,
      ...(o.user === 'root'
        // --user root: it runs the programs itself, so it keeps root's powers inside a read-only system
        ? ['ProtectSystem=strict', ...readWritePaths(o.writable), 'ProtectHome=true', 'PrivateTmp=true', 'ProtectControlGroups=true', 'UMask=0027']
        : unprivilegedSandbox({ writable: o.writable, memoryDenyWriteExecute: false })),
    ],
    socket: o.socket,
  });
}
