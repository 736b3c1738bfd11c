// Every certificate certbot stored in a configuration directory, whoever ordered it: certbot keeps
// each version of a lineage as archive/<lineage>/cert<N>.pem, written when the CA issued it. The
// panel's own orders are in its ledger; the renewal timer's (certbot renew as the panel's user,
// outside the panel) are only here, and Let's Encrypt counts them for duplicate certificates.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';

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

/**
 * The versions written at or after `since` (epoch ms), oldest first. A stat per lineage; only the
 * lineages changed within the window are listed, and only their versions in it read (with the one
 * before each, for `renewal`). `namesOf` reads
 * a certificate's names, null when it cannot (the version is skipped).
 */
export async function readArchive(archiveDir: string, since: number, namesOf: (path: string) => Promise<string[] | null>): Promise<IssuedVersion[]> {
  const out: IssuedVersion[] = [];
  for (const lineage of await entries(archiveDir)) {
    const dir = join(archiveDir, lineage);
    // a version added within the window changed its directory within it (certbot never rewrites a
    // version, and a restore puts back both times): an older directory is not listed
    const changed = await stat(dir).catch(() => null);
    if (!changed?.isDirectory() || changed.mtimeMs < since) continue;
    const versions = (await entries(dir)).map((f) => Number(VERSION.exec(f)?.[1] ?? NaN)).filter((n) => Number.isInteger(n));
    for (const version of versions) {
      const path = join(dir, `cert${version}.pem`);
      const info = await stat(path).catch(() => null);
      if (!info?.isFile() || info.mtimeMs < since) continue;
      const names = await namesOf(path);
      if (!names) continue;
      const previous = versions.includes(version - 1) ? await namesOf(join(dir, `cert${version - 1}.pem`)) : null;
      out.push({ lineage, version, names, at: Math.floor(info.mtimeMs), renewal: previous !== null && sameNames(previous, names) });
    }
  }
  return out.sort((a, b) => a.at - b.at || a.lineage.localeCompare(b.lineage) || a.version - b.version);
}
