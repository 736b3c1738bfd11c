// Where an installation lives. Every path hangs off `prefix` ('/' on a box; a temp directory in
// tests), so a test install touches nothing outside its prefix.
import { join } from 'node:path';

export interface Layout {
  prefix: string;
  /** root-owned, read-only for the panel: releases/<version>/ and the `current` link */
  appDir: string;
  releasesDir: string;
  current: string;
  /** the root helper's configuration (root's), its socket, and the launcher of `root-call` (certbot's hook) */
  helperConfig: string;
  helperSocket: string;
  rootCall: string;
  /** what releases before the root helper service installed (sudo rules and launchers): upgrade removes them */
  legacy: { wrapperDir: string; vhostLauncher: string; vhostConfig: string; sudoersFile: string };
  /** the install's choices, which upgrade keeps (install-record.ts) */
  installRecord: string;
  /** the panel's own: configuration, client CA, IP-panel certificate */
  configDir: string;
  configFile: string;
  dataDir: string;
  /** the panel's V8 code cache (systemd's CacheDirectory=relay-panel): derived, so uninstall removes it */
  cacheDir: string;
  /** root only: the first admin certificate, read once by the operator */
  adminP12: string;
  /** a unit's file; `socket` for the panel's listening socket */
  unitFile: (unit: string, type?: 'service' | 'socket') => string;
  fail2banJail: string;
  osRelease: string;
  /** root's alone: what root would not take back from the panel's user, kept for the operator to review */
  quarantine: string;
}

export function layout(prefix: string, unitDir?: string): Layout {
  const at = (...parts: string[]) => join(prefix, ...parts);
  const appDir = at('opt/relay-panel');
  const configDir = at('etc/relay-panel');
  return {
    prefix,
    appDir,
    releasesDir: join(appDir, 'releases'),
    current: join(appDir, 'current'),
    helperConfig: join(appDir, 'root-helper.json'),
    helperSocket: at('run/relay-panel-root.sock'),
    rootCall: join(appDir, 'bin', 'relay-panel-root'),
    legacy: {
      wrapperDir: join(appDir, 'sudo'),
      vhostLauncher: join(appDir, 'bin', 'relay-panel-vhosts'),
      vhostConfig: join(appDir, 'vhost-helper.json'),
      sudoersFile: at('etc/sudoers.d/relay-panel'),
    },
    installRecord: join(appDir, 'install-options.json'),
    configDir,
    configFile: join(configDir, 'config.json'),
    dataDir: at('var/lib/relay-panel'),
    cacheDir: at('var/cache/relay-panel'),
    adminP12: at('root/relay-panel-admin.p12'),
    unitFile: (unit, type = 'service') => join(unitDir ?? at('etc/systemd/system'), `${unit}.${type}`),
    fail2banJail: at('etc/fail2ban/jail.d/relay-panel.conf'),
    osRelease: at('etc/os-release'),
    quarantine: at('var/lib/relay-panel-quarantine'),
  };
}
