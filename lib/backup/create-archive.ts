import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Pack } from 'tar';
import type { Config } from '../config.ts';
import { AppError } from '../errors.ts';
import { BACKUP_FORMAT, BACKUP_VERSION, type Manifest } from './manifest.ts';
import { CONFIG_ENTRY, MANIFEST_ENTRY, renderedPaths, sectionsOf, type Section } from './sections.ts';
import { dnsCredentialsDir } from '../certs/dns01/credentials-file.ts';
import { CHECKED_SNAPSHOTS_FILE } from '../state/checked-snapshots.ts';

/** A file or directory on disk and the name it takes in the archive. */
interface Placement {
  from: string;
  to: string;
}

/** Paths as Pack sees them: relative to its cwd, the root. */
const fromRoot = (path: string) => relative('/', path);

// Journals (the collections' and the audit log's) grow while the panel runs, and tar fails an entry
// whose file grows while it is read ("did not encounter expected EOF"). Each is packed from a copy
// taken before packing starts: a prefix of whole frames, perhaps with a last line cut short, which
// the loader and the audit reader already skip. A journal begun after the copies is left out, as
// any change after the backup began.
const isJournal = (path: string) => path.endsWith('.journal');

async function copyJournals(sections: readonly Section[], scratch: string): Promise<Placement[]> {
  const placements: Placement[] = [];
  for (const section of sections) {
    const names = (await readdir(section.dir, { recursive: true })).filter(isJournal);
    for (const name of names) {
      const copy = join(scratch, `journal-${placements.length}`);
      try {
        await copyFile(join(section.dir, name), copy);
      } catch {
        continue; // compacted away since the listing: its changes are in the snapshot
      }
      placements.push({ from: fromRoot(copy), to: `${section.name}/${name}` });
    }
  }
  return placements;
}

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

  const journals = await copyJournals(sections, scratch);
  const placements: Placement[] = [
    { from: fromRoot(join(scratch, MANIFEST_ENTRY)), to: MANIFEST_ENTRY },
    { from: fromRoot(configFile), to: CONFIG_ENTRY },
    ...sections.map((s) => ({ from: fromRoot(s.dir), to: s.name })),
    ...journals,
  ];
  const rename = (path: string) => {
    const placement = placements.find((p) => path === p.from || path.startsWith(`${p.from}/`));
    return placement ? placement.to + path.slice(placement.from.length) : path;
  };
  // the DNS provider's credentials are left out: an archive must not carry a key that edits the zone
  // and the store's note of what it checked: a cache of this box's, which a restore never takes (restore.ts)
  const skipped = [...renderedPaths(config), dnsCredentialsDir(config.dataDir), join(config.dataDir, CHECKED_SNAPSHOTS_FILE)];
  const pack = new Pack({
    cwd: '/',
    gzip: true,
    // atomic writes' temp files come and go while the panel runs; they hold nothing of the state
    filter: (path) =>
      !path.endsWith('.tmp') &&
      !(isJournal(path) && !journals.some((j) => j.from === path)) &&
      !skipped.some((dir) => `/${path}` === dir || `/${path}`.startsWith(`${dir}/`)),
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
