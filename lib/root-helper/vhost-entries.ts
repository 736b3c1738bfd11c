// Which of root's TLS copies the written relay vhosts load, read from the vhosts themselves:
// sites-available is root's (the helper and the installer write it, the panel's user cannot), so
// its text is what nginx loads, whichever lineage a vhost serves (its own name's, or a wildcard).
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { routesDirOf, type SystemConfig } from '../system/config.ts';
import { readOrNull } from '../system/common/fs.ts';
import { isVhostName } from '../system/proxy/templates.ts';
import { entriesOfVhostText } from './tls-entries.ts';

/** The relay vhosts in sites-available (enabled or not): what may name an entry. */
export async function relayVhostNames(config: SystemConfig): Promise<string[]> {
  try {
    return (await readdir(config.nginx.sitesAvailable)).filter(isVhostName);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
}

/** The entries the written vhost `name` loads; none when it is not written. */
export async function writtenVhostEntries(config: SystemConfig, name: string): Promise<string[]> {
  if (!isVhostName(name)) return [];
  const text = await readOrNull(join(config.nginx.sitesAvailable, name));
  if (text === null) return [];
  return entriesOfVhostText(config.nginx.tlsDir, name, text);
}

/** Every entry a relay vhost in sites-available loads: what a restage copies and a prune keeps. */
export async function namedEntries(config: SystemConfig): Promise<Set<string>> {
  const names = await relayVhostNames(config);
  const named = new Set<string>();
  // in bounded groups: thousands of vhosts must not open thousands of files together
  for (let at = 0; at < names.length; at += 64) {
    for (const entries of await Promise.all(names.slice(at, at + 64).map((name) => writtenVhostEntries(config, name)))) {
      for (const entry of entries) named.add(entry);
    }
  }
  return named;
}

/**
 * The entries of the routes linked in the routes directory: what the per-name shared server's map
 * serves, so a put of that server (a switch back to per-name, whose routes' text does not change)
 * copies every route's own lineage before nginx loads the map.
 */
export async function routedEntries(config: SystemConfig): Promise<string[]> {
  const links = (await readdir(routesDirOf(config)).catch(() => [] as string[])).filter(isVhostName);
  const entries: string[] = [];
  for (let at = 0; at < links.length; at += 64) {
    for (const found of await Promise.all(links.slice(at, at + 64).map((name) => writtenVhostEntries(config, name)))) entries.push(...found);
  }
  return entries;
}
