import { createWriteStream } from 'node:fs';
import { lstat, rename, rm } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { backupStream } from './backup/create-archive.ts';
import { rebaseSiteRoots } from './backup/rebase-sites.ts';
import { sitesRootOf } from './backup/sections.ts';
import { restoreBackup } from './backup/restore.ts';
import type { BackupCommand } from './backup/commands.ts';
import { ConfigStore } from './config.ts';
import { errorMessage } from './errors.ts';
import { restoreHost } from './host-state/reconcile.ts';
import { openPanel } from './main.ts';

// `backup --config <file> --out <file.tar.gz>` and `restore --config <file> --from <file.tar.gz>`
// (names and usage in lib/backup/commands.ts).

function option(argv: readonly string[], name: string): string {
  const at = argv.indexOf(name);
  const value = at >= 0 ? argv[at + 1] : argv.find((a) => a.startsWith(`${name}=`))?.slice(name.length + 1);
  if (!value) throw new Error(`${name} <file> is required`);
  return value;
}

/** Writes the archive next to its destination, renamed into place once whole. */
export async function writeBackup(configFile: string, out: string): Promise<void> {
  const config = await ConfigStore.open(configFile);
  const partial = `${out}.partial`;
  try {
    await pipeline(await backupStream(configFile, config.value, new Date()), createWriteStream(partial, { mode: 0o600 }));
    await rename(partial, out);
  } catch (error) {
    await rm(partial, { force: true });
    throw error;
  }
}

/**
 * Unpacks the archive, then builds the panel, without starting it (no timer, watcher or listener:
 * a panel may be running beside), to point the site records at this box's sites root and render
 * what the records describe.
 */
export async function restore(configFile: string, archive: string, env: NodeJS.ProcessEnv, cwd: string): Promise<string[]> {
  const restored = await restoreBackup(configFile, archive);
  const { services, close } = await openPanel(await ConfigStore.open(restored.configFile), { env, cwd });
  try {
    await rebaseSiteRoots(services.store.sites, restored.sourceSitesRoot, sitesRootOf(restored.config));
    return await restoreHost(services);
  } finally {
    await close();
  }
}

/**
 * Both commands read or write the panel's files (its configuration, state, client CA, certificates):
 * on a box where those are a less privileged user's, root would read and write where that user can
 * plant links, so root is sent to that user instead.
 */
async function rootRefusal(configFile: string): Promise<string | null> {
  if (process.geteuid?.() !== 0) return null;
  const st = await lstat(configFile).catch(() => null);
  if (!st || st.uid === 0) return null;
  return `${configFile} belongs to uid ${st.uid}: run this as that user, never as root (setsid -w runuser -u <that user> -- ${process.execPath} ${process.argv[1]} ...)`;
}

export async function runBackupCommand(command: BackupCommand, argv: readonly string[], env: NodeJS.ProcessEnv, cwd: string): Promise<number> {
  try {
    const configFile = resolve(cwd, option(argv, '--config'));
    const refused = await rootRefusal(configFile);
    if (refused) {
      console.error(`relay-panel ${command}: ${refused}`);
      return 2;
    }
    if (command === 'backup') {
      const out = resolve(cwd, option(argv, '--out'));
      await writeBackup(configFile, out);
      console.log(`backup written to ${out}`);
      return 0;
    }
    const failures = await restore(configFile, resolve(cwd, option(argv, '--from')), env, cwd);
    for (const failure of failures) console.error(`relay-panel restore: ${failure}`);
    console.log(`restored into ${configFile}${failures.length ? ' (with the failures above)' : ''}`);
    return failures.length ? 1 : 0;
  } catch (error) {
    console.error(`relay-panel ${command}: ${errorMessage(error)}`);
    return 1;
  }
}
