// The `config` and `point-at-helper` tasks: the panel's configuration file is the panel's, so the
// panel's user makes and changes it.
import { dirname } from 'node:path';
import { ConfigStore, type ConfigInput } from '../../config.ts';
import { writeSecretFile } from '../../system/common/atomic-write.ts';
import { pathExists } from '../../system/common/fs.ts';
import type { PanelAnswer, PanelTask } from './protocol.ts';

export async function makeConfig(file: string, create: ConfigInput): Promise<PanelAnswer<'config'>> {
  if (!(await pathExists(file))) {
    // ConfigStore makes the session secret once; a later install opens and keeps it
    const made = await ConfigStore.create(file, create);
    return { created: true, ip: made.value.ip };
  }
  return { created: false, ip: (await ConfigStore.open(file)).value.ip };
}

/**
 * The system section's parts that the root helper's configuration and the units also name: a
 * release before the helper named the sudo launchers (pointed at the real programs and the
 * helper's socket), one before chisel and Authelia had users of their own ran them as the panel's,
 * one before the panel's own certbot directories used Debian's.
 */
export async function syncSystem(t: Extract<PanelTask, { task: 'sync-system' }>): Promise<PanelAnswer<'sync-system'>> {
  if (!(await pathExists(t.file))) return { changed: false };
  const store = await ConfigStore.open(t.file);
  const { system } = store.value;
  const viaSudo = (binary: string) => dirname(binary) === t.legacyWrapperDir;
  const binaries = {
    ...system.binaries,
    ...(viaSudo(system.binaries.nginx) ? { nginx: t.binaries.nginx } : {}),
    ...(viaSudo(system.binaries.systemctl) ? { systemctl: t.binaries.systemctl } : {}),
  };
  // only the sections asked for: an upgrade's acme step moves the certificates (forward only) and
  // leaves the rest to the privileges step, which a failed upgrade puts back
  const { rootHelper, systemd, acme } = t.system;
  const wanted = {
    ...system,
    binaries,
    nginx: { ...system.nginx, vhostHelper: null },
    ...(rootHelper !== undefined ? { rootHelper } : {}),
    ...(systemd ? { systemd: { ...system.systemd, runAs: systemd.runAs, tunnelUser: systemd.tunnelUser, portalUser: systemd.portalUser } } : {}),
    ...(acme ? { acme: { ...system.acme, configDir: acme.configDir, workDir: acme.workDir, logsDir: acme.logsDir, webroot: acme.webroot, renewTimer: acme.renewTimer } } : {}),
  };
  if (JSON.stringify(wanted) === JSON.stringify(system)) return { changed: false };
  await store.update({ system: wanted });
  return { changed: true };
}

/** The configuration as it was before a failed upgrade (0600, as the store writes it). */
export async function writeConfig(file: string, text: string): Promise<PanelAnswer<'write-config'>> {
  await writeSecretFile(file, text);
  return {};
}
