// Where an installation lives. Every path hangs off `prefix` ('/' on a box; a temp directory in
// tests), so a test install touches nothing outside its prefix.
import { join } from 'node:path';

export interface Layout {
  prefix: string;
  /** root-owned, read-only for the panel: releases/<version>/ and the `current` link */
  appDir: string;
  releasesDir: string;
  current: string;
  /** root-owned launchers that run the whitelisted command lines through sudo */
  wrapperDir: string;
  /** the root vhost helper's launcher (`<helper> apply` is granted) and its root-owned configuration */
  helperLauncher: string;
  helperConfig: string;
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
  sudoersFile: string;
  fail2banJail: string;
  osRelease: string;
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
    wrapperDir: join(appDir, 'sudo'),
    helperLauncher: join(appDir, 'bin', 'relay-panel-vhosts'),
    helperConfig: join(appDir, 'vhost-helper.json'),
    installRecord: join(appDir, 'install-options.json'),
    configDir,
    configFile: join(configDir, 'config.json'),
    dataDir: at('var/lib/relay-panel'),
    cacheDir: at('var/cache/relay-panel'),
    adminP12: at('root/relay-panel-admin.p12'),
    unitFile: (unit, type = 'service') => join(unitDir ?? at('etc/systemd/system'), `${unit}.${type}`),
    sudoersFile: at('etc/sudoers.d/relay-panel'),
    fail2banJail: at('etc/fail2ban/jail.d/relay-panel.conf'),
    osRelease: at('etc/os-release'),
  };
}
