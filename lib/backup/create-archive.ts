import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Pack } from 'tar';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import { BACKUP_FORMAT, BACKUP_VERSION, type Manifest } from './manifest.ts';
import { CONFIG_ENTRY, MANIFEST_ENTRY, renderedPaths, sectionsOf } from './sections.ts';

/** A file or directory on disk and the name it takes in the archive. */
interface Placement {
  from: string;
  to: string;
}

/** Paths as Pack sees them: relative to its cwd, the root. */
const fromRoot = (path: string) => relative('/', path);

/**
 * The backup as a gzipped tar stream, read from disk as it is consumed (never held in memory):
 * the manifest first, the configuration file, then each section's directory. Pack names entries
 * by their path from its cwd; the entry hook renames them to the section's name.
 */
export async function backupStream(configFile: string, config: Config, now: Date): Promise<Pack> {
  if (!existsSync(configFile)) throw new AppError(409, 'Backups need the configuration and state on disk');
  const sections = sectionsOf(config).filter((s) => existsSync(s.dir));
  const manifest: Manifest = { format: BACKUP_FORMAT, version: BACKUP_VERSION, created: now.toISOString(), sections: sections.map((s) => s.name) };
  const scratch = await mkdtemp(join(tmpdir(), 'relay-backup-'));
  await writeFile(join(scratch, MANIFEST_ENTRY), JSON.stringify(manifest, null, 2), { mode: 0o600 });

  const placements: Placement[] = [
    { from: fromRoot(join(scratch, MANIFEST_ENTRY)), to: MANIFEST_ENTRY },
    { from: fromRoot(configFile), to: CONFIG_ENTRY },
    ...sections.map((s) => ({ from: fromRoot(s.dir), to: s.name })),
  ];
  const rename = (path: string) => {
    const placement = placements.find((p) => path === p.from || path.startsWith(`${p.from}/`));
    return placement ? placement.to + path.slice(placement.from.length) : path;
  };
  const skipped = renderedPaths(config);
  const pack = new Pack({
    cwd: '/',
    gzip: true,
    // atomic writes' temp files come and go while the panel runs; they hold nothing of the state
    filter: (path) => !path.endsWith('.tmp') && !skipped.some((dir) => `/${path}` === dir || `/${path}`.startsWith(`${dir}/`)),
    onWriteEntry(entry) {
      entry.path = rename(entry.path);
      // hard links name another entry of the archive
      if (entry.type === 'Link' && entry.linkpath) entry.linkpath = rename(entry.linkpath);
    },
  });
  const cleanUp = () => void rm(scratch, { recursive: true, force: true });
  pack.on('end', cleanUp);
  pack.on('close', cleanUp);
  // a file that vanished while packing fails the stream (its reader sees the error); never the process
  pack.on('error', cleanUp);
  for (const placement of placements) pack.add(placement.from);
  pack.end();
  return pack;
}
