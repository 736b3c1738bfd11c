// The entries of the per-name shared server's certificate map (sni-map.ts), made by root right
// before nginx loads its configuration (each `nginx -t` and reload, the proxy unit's start): one
// per linked route whose name has a certificate, and the fallback. An entry is current when its
// files are there and newer than its sources' last change (a renewal's new archive file, a new
// copy), so a change at 1,000 tunnels costs three stats a name, with no read or parse, in a fresh
// helper too. A source that is refused (canonicalPem) keeps the entry that was there (nginx goes
// on serving the earlier certificate) or leaves the name to the fallback: one line in the log says
// which. While no linked server names the map, no entry stays: they hold private keys.
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { ensureOwnDir } from '../common/own-dir.ts';
import { join } from 'node:path';
import { mapAtMost } from '../../map-at-most.ts';
import { writeFileAtomic } from '../common/atomic-write.ts';
import { isFqdn } from '../common/names.ts';
import { SystemError, type CertPaths } from '../types.ts';
import { routeName } from './app-template.ts';
import { canonicalPem, SNI_DATA, sniEntries, sniEntryPaths, sniFallbackPaths } from './sni-map.ts';

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

/** The sources' last change, or null when one is missing (a certificate not issued yet). */
async function sourcesChanged(paths: CertPaths): Promise<number | null> {
  try {
    const [chain, key] = await Promise.all([stat(paths.fullchain), stat(paths.privkey)]);
    return Math.max(chain.ctimeMs, key.ctimeMs);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** Makes one entry current; answers whether its files stay. `present`: its files are all there now. */
async function syncEntry(o: SniSources, files: string[], key: string, paths: CertPaths, present: boolean): Promise<boolean> {
  const changed = await sourcesChanged(paths);
  if (changed === null) return false;
  if (present && (await stat(files[0]!)).mtimeMs > changed) return true;
  let texts: string[];
  try {
    texts = sniEntries(key, canonicalPem(await o.read(paths.fullchain), await o.read(paths.privkey)));
  } catch (e) {
    o.log(`certificate map: ${paths.fullchain} refused for ${key}: ${(e as Error).message}; ${present ? 'its entry is kept as it was' : 'the name gets the fallback'}`);
    return present;
  }
  for (const [i, text] of texts.entries()) await writeFileAtomic(files[i]!, text, 0o600);
  return true;
}

/** Brings the entries in line with the linked routes and their certificates; none while no server names the map. */
export async function syncSniFiles(o: SniSources): Promise<void> {
  const names = join(o.dir, 'names');
  const listed = async () => new Set((await readdir(names).catch(() => [] as string[])).map((file) => join(names, file)));
  if (!(await sniServerLinked(o.enabledDir))) {
    for (const path of await listed()) await rm(path, { force: true });
    return;
  }
  await ensureOwnDir(o.dir, 'the certificate map');
  await ensureOwnDir(names, 'the certificate map');
  const present = await listed();
  const fallback = sniFallbackPaths(o.dir);
  const fallbackThere = (await Promise.all(fallback.map((f) => stat(f).then(() => true, () => false)))).every(Boolean);
  // without a fallback nginx would find no certificate for an unknown name: an empty map value
  if (!(await syncEntry(o, fallback, 'default', o.fallback, fallbackThere))) throw new SystemError(`certificate map: no fallback certificate at ${o.fallback.fullchain}`);
  const kept = new Set<string>();
  await mapAtMost(await routedNames(o.routesDir), AT_ONCE, async (fqdn) => {
    const files = sniEntryPaths(o.dir, fqdn);
    if (await syncEntry(o, files, fqdn, o.certFor(fqdn), files.every((f) => present.has(f)))) for (const f of files) kept.add(f);
  });
  for (const path of present) if (!kept.has(path)) await rm(path, { force: true });
}
