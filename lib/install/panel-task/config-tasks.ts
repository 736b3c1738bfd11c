// The `config` and `point-at-helper` tasks: the panel's configuration file is the panel's, so the
// panel's user makes and changes it.
import { dirname } from 'node:path';
import { ConfigStore, type ConfigInput } from '../../config.ts';
import { writeSecretFile } from '../../system/atomic-write.ts';
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
 * A configuration from a release before the root helper names the sudo launchers and the sudo-run
 * vhost helper: it is pointed at the real programs and the helper's socket.
 */
export async function pointAtHelper(t: Extract<PanelTask, { task: 'point-at-helper' }>): Promise<PanelAnswer<'point-at-helper'>> {
  if (!(await pathExists(t.file))) return { changed: false };
  const store = await ConfigStore.open(t.file);
  const { system } = store.value;
  const viaSudo = (binary: string) => dirname(binary) === t.legacyWrapperDir;
  const binaries = {
    ...system.binaries,
    ...(viaSudo(system.binaries.nginx) ? { nginx: t.binaries.nginx } : {}),
    ...(viaSudo(system.binaries.systemctl) ? { systemctl: t.binaries.systemctl } : {}),
  };
  const same = JSON.stringify(system.rootHelper) === JSON.stringify(t.rootHelper) && system.nginx.vhostHelper === null
    && binaries.nginx === system.binaries.nginx && binaries.systemctl === system.binaries.systemctl;
  if (same) return { changed: false };
  await store.update({ system: { ...system, binaries, rootHelper: t.rootHelper, nginx: { ...system.nginx, vhostHelper: null } } });
  return { changed: true };
}

/** The configuration as it was before a failed upgrade (0600, as the store writes it). */
export async function writeConfig(file: string, text: string): Promise<PanelAnswer<'write-config'>> {
  await writeSecretFile(file, text);
  return {};
}
