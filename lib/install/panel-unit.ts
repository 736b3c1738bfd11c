// The panel's systemd unit: its own user, a read-only system, writes only where it keeps state.
import { renderUnit } from '../system/host/units.ts';

export interface PanelUnitOptions {
  user: string;
  node: string;
  server: string;
  configFile: string;
  /** directories the panel writes (configuration, data, vhosts, ACME, chisel, Authelia, sites) */
  writable: string[];
}

export function renderPanelUnit(o: PanelUnitOptions): string {
  return renderUnit({
    description: 'relay-panel management service',
    execStart: `${o.node} ${o.server} --config ${o.configFile}`,
    hardening: [
      `User=${o.user}`,
      `Group=${o.user}`,
      'Environment=NODE_ENV=production',
      // sudo (the whitelisted command lines) needs setuid, so NoNewPrivileges stays off for the
      // panel only; the rest of the sandbox still applies
      'ProtectSystem=strict',
      // `-`: a directory that does not exist yet must not stop the panel from starting
      `ReadWritePaths=${o.writable.map((d) => `-${d}`).join(' ')}`,
      'ProtectHome=true',
      'PrivateTmp=true',
      'PrivateDevices=true',
      'ProtectKernelTunables=true',
      'ProtectKernelModules=true',
      'ProtectControlGroups=true',
      'RestrictSUIDSGID=true',
      'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 AF_NETLINK',
      'LockPersonality=true',
      'UMask=0027',
    ],
    noNewPrivileges: false,
  });
}
