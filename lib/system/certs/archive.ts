// Every certificate certbot stored in a configuration directory, whoever ordered it: certbot keeps
// each version of a lineage as archive/<lineage>/cert<N>.pem, written when the CA issued it. The
// panel's own orders are in its ledger; the renewal timer's (certbot renew as the panel's user,
// outside the panel) are only here, and Let's Encrypt counts them for duplicate certificates.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { mapAtMost } from '../../map-at-most.ts';

export interface IssuedVersion {
  lineage: string;
  /** certbot's N in cert<N>.pem */
  version: number;
  /** the names the certificate covers (its DNS subject alternative names) */
  names: string[];
  /** when it was written (epoch ms): the file's modification time, kept by a restore (tar keeps it) */
  at: number;
  /** the version before it covered the same names: a renewal in Let's Encrypt's sense */
  renewal: boolean;
}

const VERSION = /^cert([1-9][0-9]*)\.pem$/;

/** A set of names as one string (lower case, each once, sorted): the CA's duplicate-certificate key. */
export const nameSetKey = (names: readonly string[]): string => [...new Set(names.map((n) => n.toLowerCase()))].sort().join(',');

export const sameNames = (a: readonly string[], b: readonly string[]): boolean => nameSetKey(a) === nameSetKey(b);

async function entries(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => []);
}

/** Lineage directories statted (and changed ones read) at once. */
const LINEAGES_AT_ONCE = 16;
/**
 * A directory whose change time is this close to the read may change again within the same tick
 * of the file system's clock (coarse, up to a second or two on some): it is read again next time.
 */
const SETTLED_MS = 2_000;

/** What one read of a lineage found: its directory's times then, and every version's names parsed. */
interface SeenLineage {
  /** the directory's mtime and ctime when read; null when the read must not be reused */
  stamp: string | null;
  /** the oldest time the listed versions were read for: a wider window reads again */
  since: number;
  listed: IssuedVersion[];
  /** cert<N>.pem's names, by N (certbot never rewrites a version) */
  names: Map<number, string[]>;
}

export type ArchiveReader = (archiveDir: string, since: number) => Promise<IssuedVersion[]>;

/**
 * `readArchive` that remembers each lineage as last read: a lineage whose directory is unchanged
 * since (no version added or removed, so neither time moved) is not read again, and a changed one
 * parses only its versions not parsed before. The limits read the archive on each count and each
 * order; a box with many certificates stats each lineage once per read, in parallel.
 */
export function archiveReader(namesOf: (path: string) => Promise<string[] | null>, settledMs = SETTLED_MS): ArchiveReader {
  let seenDir: string | null = null;
  let seen = new Map<string, SeenLineage>();

  const readLineage = async (dir: string, lineage: string, since: number, stamp: string | null, before: SeenLineage | undefined): Promise<SeenLineage> => {
    const names = new Map(before?.names);
    let complete = true;
    const parsed = async (version: number): Promise<string[] | null> => {
      const known = names.get(version);
      if (known) return known;
      const read = await namesOf(join(dir, `cert${version}.pem`));
      if (read) names.set(version, read);
      else complete = false;
      return read;
    };
    const versions = (await entries(dir)).map((f) => Number(VERSION.exec(f)?.[1] ?? NaN)).filter((n) => Number.isInteger(n));
    const listed: IssuedVersion[] = [];
    for (const version of versions) {
      const info = await stat(join(dir, `cert${version}.pem`)).catch(() => null);
      if (!info?.isFile() || info.mtimeMs < since) continue;
      const current = await parsed(version);
      if (!current) continue;
      const previous = versions.includes(version - 1) ? await parsed(version - 1) : null;
      listed.push({ lineage, version, names: current, at: Math.floor(info.mtimeMs), renewal: previous !== null && sameNames(previous, current) });
    }
    // a version not parsed (certbot still writing it) is tried again on the next read
    return { stamp: complete ? stamp : null, since, listed, names };
  };

  return async (archiveDir, since) => {
    if (seenDir !== archiveDir) seen = new Map();
    seenDir = archiveDir;
    const now = Date.now();
    const next = new Map<string, SeenLineage>();
    const found = await mapAtMost(await entries(archiveDir), LINEAGES_AT_ONCE, async (lineage) => {
      const dir = join(archiveDir, lineage);
      // a version added within the window changed its directory within it (certbot never rewrites a
      // version, and a restore puts back both times): an older directory is not listed
      const changed = await stat(dir).catch(() => null);
      if (!changed?.isDirectory() || changed.mtimeMs < since) return [];
      const before = seen.get(lineage);
      const stamp = now - changed.ctimeMs >= settledMs ? `${changed.mtimeMs}:${changed.ctimeMs}` : null;
      const reuse = before !== undefined && stamp !== null && before.stamp === stamp && before.since <= since;
      const lineageRead = reuse ? before : await readLineage(dir, lineage, since, stamp, before);
      next.set(lineage, lineageRead);
      return lineageRead.listed.filter((v) => v.at >= since);
    });
    seen = next;
    return found.flat().sort((a, b) => a.at - b.at || a.lineage.localeCompare(b.lineage) || a.version - b.version);
  };
}

/**
 * The versions written at or after `since` (epoch ms), oldest first. A stat per lineage; only the
 * lineages changed within the window are listed, and only their versions in it read (with the one
 * before each, for `renewal`). `namesOf` reads a certificate's names, null when it cannot (the
 * version is skipped). One read, remembering nothing: `archiveReader` for repeated ones.
 */
export function readArchive(archiveDir: string, since: number, namesOf: (path: string) => Promise<string[] | null>): Promise<IssuedVersion[]> {
  return archiveReader(namesOf)(archiveDir, since);
}
