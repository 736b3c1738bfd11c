// The entries of the per-name shared server's certificate map (sni-map.ts), made by root right
// before nginx loads its configuration (each `nginx -t` and reload, the proxy unit's start): one
// per linked route whose name has a certificate, and the fallback. An entry is current when its
// files are there and newer than its sources' last change (a renewal's new archive file, a new
// copy), so a change at 1,000 tunnels costs three stats a name, with no read or parse, in a fresh
// helper too. The stats are synchronous: through the thread pool, 3,000 of them cost a sync at
// 1,000 names 100-117 ms of CPU in promises and Stats objects, against about 20 ms. A source that is refused (canonicalPem) keeps the entry that was there (nginx goes
// on serving the earlier certificate) or leaves the name to the fallback: one line in the log says
// which. While no linked server names the map, no entry stays: they hold private keys.
import { statSync } from 'node:fs';
import { readdir, readFile, rm, utimes } from 'node:fs/promises';
import { ensureOwnDir } from '../common/own-dir.ts';
import { join } from 'node:path';
import { mapAtMost } from '../../map-at-most.ts';
import { writeFileAtomic } from '../common/atomic-write.ts';
import { isFqdn } from '../common/names.ts';
import { SystemError, type CertPaths } from '../types.ts';
import { routeName } from './app-template.ts';
import { canonicalPem, SNI_DATA, sniEntries, sniEntryPathsIn, sniFallbackPaths } from './sni-map.ts';

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

/**
 * The names of the linked routes, from their links' names (a long name's from its route line, read
 * once): a name known from an earlier call without a promise, 1,000 of them at each sync. The root
 * helper's staging asks it too (vhost-entries.ts).
 */
export async function routedNames(routesDir: string): Promise<string[]> {
  const links = (await readdir(routesDir).catch(() => [] as string[])).filter((l) => l.startsWith('relay-app-') && l.endsWith('.conf'));
  // the long-lived helper keeps no name of a route gone since
  const listed = new Set(links);
  for (const link of fqdnByRoute.keys()) if (!listed.has(link)) fqdnByRoute.delete(link);
  const unknown = links.filter((link) => !fqdnByRoute.has(link));
  await mapAtMost(unknown, AT_ONCE, (link) => routeFqdn(routesDir, link));
  return links.flatMap((link) => fqdnByRoute.get(link) ?? []);
}

/** The sources' last change, or null when one is missing (a certificate not issued yet). */
function sourcesChanged(paths: CertPaths): number | null {
  const chain = statSync(paths.fullchain, { throwIfNoEntry: false });
  const key = statSync(paths.privkey, { throwIfNoEntry: false });
  return chain && key ? Math.max(chain.ctimeMs, key.ctimeMs) : null;
}

/**
 * An entry's state: its sources are gone (none), or its files, all there, are newer than they are.
 * The part written last is the one compared: a write cut short after an earlier part (a full disk,
 * a killed helper) leaves the entry stale, not half old and half new for good.
 */
function entryState(paths: CertPaths, files: string[], present: boolean): 'no source' | 'current' | 'stale' {
  const changed = sourcesChanged(paths);
  if (changed === null) return 'no source';
  // a part removed since the listing (another process's sync) makes the entry stale, never a throw
  return present && (statSync(files.at(-1)!, { throwIfNoEntry: false })?.mtimeMs ?? 0) > changed ? 'current' : 'stale';
}

/**
 * Makes one entry current; answers whether its files stay. `present`: its files are all there now;
 * `state`: entryState's answer, when the caller has it already.
 */
async function syncEntry(o: SniSources, files: string[], key: string, paths: CertPaths, present: boolean, state = entryState(paths, files, present)): Promise<boolean> {
  if (state !== 'stale') return state === 'current';
  const before = sourcesChanged(paths);
  let texts: string[];
  try {
    texts = sniEntries(key, canonicalPem(await o.read(paths.fullchain), await o.read(paths.privkey)));
  } catch (e) {
    o.log(`certificate map: ${paths.fullchain} refused for ${key}: ${(e as Error).message}; ${present ? 'its entry is kept as it was' : 'the name gets the fallback'}`);
    return present;
  }
  for (const [i, text] of texts.entries()) await writeFileAtomic(files[i]!, text, 0o600);
  // renewed while it was read (certbot beside this sync): the entry, whole but of the earlier
  // certificate, would look newer than the renewal for good; dated back, the next sync makes it again
  if (sourcesChanged(paths) !== before) await utimes(files.at(-1)!, 0, 0);
  return true;
}

/** Brings the entries in line with the linked routes and their certificates; none while no server names the map. */
export async function syncSniFiles(o: SniSources): Promise<void> {
  const names = join(o.dir, 'names');
  // the entries' own names are joined as sniEntryPathsIn joins them: 4,000 of path.join cost a sync at 1,000 names 5-8 ms
  const listed = async () => new Set((await readdir(names).catch(() => [] as string[])).map((file) => `${names}/${file}`));
  if (!(await sniServerLinked(o.enabledDir))) {
    for (const path of await listed()) await rm(path, { force: true });
    return;
  }
  await ensureOwnDir(o.dir, 'the certificate map');
  await ensureOwnDir(names, 'the certificate map');
  const present = await listed();
  const fallback = sniFallbackPaths(o.dir);
  const fallbackThere = fallback.every((f) => statSync(f, { throwIfNoEntry: false }) !== undefined);
  // without a fallback nginx would find no certificate for an unknown name: an empty map value
  if (!(await syncEntry(o, fallback, 'default', o.fallback, fallbackThere))) throw new SystemError(`certificate map: no fallback certificate at ${o.fallback.fullchain}`);
  const kept = new Set<string>();
  const stale: Array<{ fqdn: string; files: string[]; paths: CertPaths; present: boolean }> = [];
  for (const fqdn of await routedNames(o.routesDir)) {
    const files = sniEntryPathsIn(names, fqdn);
    const paths = o.certFor(fqdn);
    const there = files.every((f) => present.has(f));
    const state = entryState(paths, files, there);
    if (state === 'current') for (const f of files) kept.add(f);
    else if (state === 'stale') stale.push({ fqdn, files, paths, present: there });
  }
  await mapAtMost(stale, AT_ONCE, async ({ fqdn, files, paths, present: there }) => {
    if (await syncEntry(o, files, fqdn, paths, there, 'stale')) for (const f of files) kept.add(f);
  });
  for (const path of present) if (!kept.has(path)) await rm(path, { force: true });
}
