// The entries of the per-name shared server's certificate map (sni-map.ts), made by root right
// before nginx loads its configuration (each `nginx -t` and reload): one per linked route whose
// name has a certificate, and the fallback. A source is read again only when its file changed
// (device, inode, size and times, the way a renewal's new archive file or a new copy shows), so a
// change at 1,000 tunnels costs 2,000 stats, not 2,000 reads and parses. A source that is missing
// or refused (canonicalPem) leaves that name to the fallback, or keeps the entry it had: one line
// in the log says which. Nothing runs while no linked server names the map.
import { mkdir, readdir, readFile, rm, stat, lstat, chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { mapAtMost } from '../../map-at-most.ts';
import { writeFileAtomic } from '../common/atomic-write.ts';
import { isFqdn } from '../common/names.ts';
import { SystemError, type CertPaths } from '../types.ts';
import { routeName } from './app-template.ts';
import { canonicalPem, SNI_DATA, sniEntry, sniEntryPath, sniFallbackPath } from './sni-map.ts';

export interface SniSources {
  /** the directory of entries (root's, 0700) */
  dir: string;
  routesDir: string;
  enabledDir: string;
  /** the certificate and key nginx would load for the name: root's copies, or certbot's files on a root panel */
  certFor(fqdn: string): CertPaths;
  fallback: CertPaths;
  read(path: string): Promise<Buffer>;
  log(line: string): void;
}

const AT_ONCE = 16;

interface Known {
  signature: string;
  /** whether the entry stays: written from this source, or kept from an earlier one while this one is refused */
  keep: boolean;
}

/** What was read per entry path, by directory: a long-running helper keeps it between changes. */
const knownByDir = new Map<string, Map<string, Known>>();
const fqdnByRoute = new Map<string, string>();

/** Whether a linked vhost of sites-enabled names the map (the shared server in per-name mode). */
export async function sniServerLinked(enabledDir: string): Promise<boolean> {
  const names = await readdir(enabledDir).catch(() => [] as string[]);
  for (const name of names) {
    if (!name.startsWith('relay-tunnels-')) continue;
    const text = await readFile(join(enabledDir, name), 'utf8').catch(() => '');
    if (text.includes(SNI_DATA)) return true;
  }
  return false;
}

async function routeFqdn(routesDir: string, link: string): Promise<string | null> {
  const known = fqdnByRoute.get(link);
  if (known) return known;
  const middle = link.slice('relay-app-'.length, -'.conf'.length);
  let fqdn: string | null = isFqdn(middle) ? middle : null;
  // a long name's file name holds a hash, not the name: its route line says it
  if (fqdn === null) fqdn = routeName(await readFile(join(routesDir, link), 'utf8').catch(() => ''));
  if (fqdn !== null) fqdnByRoute.set(link, fqdn);
  return fqdn;
}

/** The names of the linked routes. */
async function routedNames(routesDir: string): Promise<string[]> {
  const links = (await readdir(routesDir).catch(() => [] as string[])).filter((l) => l.startsWith('relay-app-') && l.endsWith('.conf'));
  const names = await mapAtMost(links, AT_ONCE, (link) => routeFqdn(routesDir, link));
  return names.filter((n): n is string => n !== null);
}

async function signature(paths: CertPaths): Promise<string | null> {
  const sig = async (path: string) => {
    const st = await stat(path);
    return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
  };
  try {
    return `${await sig(paths.fullchain)}|${await sig(paths.privkey)}`;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

async function ensureRootDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const st = await lstat(dir);
  const euid = process.geteuid?.() ?? 0;
  if (!st.isDirectory() || st.uid !== euid) throw new SystemError(`${dir} is not a directory of uid ${euid}: the certificate map cannot be written there`);
  if ((st.mode & 0o7777) !== 0o700) await chmod(dir, 0o700);
}

/** Makes one entry current; answers its path when it should stay. `present`: whether its file is there now. */
async function syncEntry(o: SniSources, known: Map<string, Known>, path: string, key: string, paths: CertPaths, present: boolean): Promise<string | null> {
  const sig = await signature(paths);
  if (sig === null) {
    known.delete(path);
    return null;
  }
  const had = known.get(path);
  if (had?.signature === sig && (present || !had.keep)) return had.keep ? path : null;
  let text: string;
  try {
    text = sniEntry(key, canonicalPem(await o.read(paths.fullchain), await o.read(paths.privkey)));
  } catch (e) {
    // the entry written before (an earlier certificate) stays: nginx goes on serving it
    known.set(path, { signature: sig, keep: present });
    o.log(`certificate map: ${paths.fullchain} refused for ${key}: ${(e as Error).message}; ${present ? 'its entry is kept as it was' : 'the name gets the fallback'}`);
    return present ? path : null;
  }
  const current = present ? await readFile(path, 'utf8').catch(() => null) : null;
  if (current !== text) await writeFileAtomic(path, text, 0o600);
  known.set(path, { signature: sig, keep: true });
  return path;
}

/** Brings the entries in line with the linked routes and their certificates; nothing while no server names the map. */
export async function syncSniFiles(o: SniSources): Promise<void> {
  if (!(await sniServerLinked(o.enabledDir))) return;
  await ensureRootDir(o.dir);
  await ensureRootDir(join(o.dir, 'names'));
  let known = knownByDir.get(o.dir);
  if (!known) knownByDir.set(o.dir, (known = new Map()));
  const present = new Set((await readdir(join(o.dir, 'names')).catch(() => [] as string[])).map((file) => join(o.dir, 'names', file)));
  const fallbackPath = sniFallbackPath(o.dir);
  const fallback = await syncEntry(o, known, fallbackPath, 'default', o.fallback, await stat(fallbackPath).then(() => true, () => false));
  // without a fallback nginx would find no certificate for an unknown name: an empty map value
  if (fallback === null) throw new SystemError(`certificate map: no fallback certificate at ${o.fallback.fullchain}`);
  const names = await routedNames(o.routesDir);
  const kept = new Set(await mapAtMost(names, AT_ONCE, (fqdn) => {
    const path = sniEntryPath(o.dir, fqdn);
    return syncEntry(o, known, path, fqdn, o.certFor(fqdn), present.has(path));
  }));
  for (const path of present) {
    if (kept.has(path)) continue;
    await rm(path, { force: true });
    known.delete(path);
  }
}
