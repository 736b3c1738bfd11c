// The TCP and UDP tunnels' part of nginx's main configuration: the streams directory (root's, as
// the vhost directories) and a `stream {}` block that includes it. The block is a file of Debian's
// modules-enabled directory, which nginx.conf includes in its main context, named to come after
// libnginx-mod-stream's own 50-mod-stream.conf (the module's load_module): nginx.conf itself stays
// Debian's conffile, untouched, so a package upgrade never asks about it. Written only once the
// module is loaded there: a stream block without the module stops nginx.
import { readdir, readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { streamsDirOf, type SystemConfig } from '../system/config.ts';
import { streamBlock } from '../system/streams/render.ts';
import { ensureDir, writeIfChanged } from './files.ts';
import { listStreamFiles } from '../system/streams/store.ts';
import { ROOT } from './steps/step.ts';

export const STREAM_BLOCK_FILE = '60-relay-panel-streams.conf';

export const modulesEnabledDir = (system: SystemConfig) => join(dirname(system.nginx.conf), 'modules-enabled');

/** The block's file: an upgrade saves it before it starts and puts it back when it fails. */
export const streamBlockPath = (system: SystemConfig) => join(modulesEnabledDir(system), STREAM_BLOCK_FILE);

/** Whether a file of modules-enabled loads the stream module. */
export async function streamModuleLoaded(dir: string): Promise<boolean> {
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (name === STREAM_BLOCK_FILE || !name.endsWith('.conf')) continue;
    const text = await readFile(join(dir, name), 'utf8').catch(() => '');
    if (/^\s*load_module\s+\S*ngx_stream_module\.so\s*;/m.test(text)) return true;
  }
  return false;
}

/** `changed`: something was written; `loaded`: false when the module is missing (no block then). */
export async function ensureStreamBlock(system: SystemConfig): Promise<{ changed: boolean; loaded: boolean }> {
  let changed = await ensureDir(streamsDirOf(system), 0o755, ROOT);
  const dir = modulesEnabledDir(system);
  const block = streamBlockPath(system);
  if (!(await streamModuleLoaded(dir))) {
    // a block left from before the module went away would stop nginx at its next start
    await rm(block, { force: true });
    return { changed, loaded: false };
  }
  const text = `# written by relay-panel: the TCP and UDP tunnels' stream servers\n${streamBlock(streamsDirOf(system))}`;
  changed = (await writeIfChanged(block, text, 0o644, ROOT)) || changed;
  return { changed, loaded: true };
}

/** uninstall: the stream block and the stream servers gone (nothing of the relay's stays in nginx); the count of servers removed. */
export async function removeStreamBlock(system: SystemConfig): Promise<number> {
  await rm(streamBlockPath(system), { force: true });
  const servers = await listStreamFiles(streamsDirOf(system));
  await rm(streamsDirOf(system), { recursive: true, force: true });
  return servers.length;
}
