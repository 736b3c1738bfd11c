// Which of root's TLS copies the written relay vhosts load, read from the vhosts themselves:
// sites-available is root's (the helper and the installer write it, the panel's user cannot), so
// its text is what nginx loads, whichever lineage a vhost serves (its own name's, or a wildcard).
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { routesDirOf, type SystemConfig } from '../system/config.ts';
import { readOrNull } from '../system/common/fs.ts';
import { isRouteSpec, isRouteText, isVhostName, routeName } from '../system/proxy/templates.ts';
import { routedNames, sniServerLinked } from '../system/proxy/sni-files.ts';
import { mapAtMost } from '../map-at-most.ts';
import type { VhostChange, VhostSpec } from '../system/types.ts';
import { entriesOfVhostText } from './tls-entries.ts';

/** Files read at once. */
const AT_ONCE = 64;

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
  const named = new Set<string>(await sniServerLinked(config.nginx.sitesEnabled) ? await routedEntries(config) : []);
  // in bounded groups: thousands of vhosts must not open thousands of files together
  for (const entries of await mapAtMost(names, AT_ONCE, (name) => writtenVhostEntries(config, name))) for (const entry of entries) named.add(entry);
  return named;
}

/** The name a written route serves; none for another vhost or a file that is not there. */
async function writtenRouteName(config: SystemConfig, name: string): Promise<string[]> {
  if (!isVhostName(name)) return [];
  const text = await readOrNull(join(config.nginx.sitesAvailable, name));
  const fqdn = text !== null && isRouteText(text) ? routeName(text) : null;
  return fqdn === null ? [] : [fqdn];
}

/**
 * The own lineages of the routes linked in the routes directory: what the per-name shared server's
 * map serves, so their copies are staged and kept while that server is linked, and only then (under
 * the wildcard a route has no lineage of its own to copy, and an old one must not refuse a change).
 */
function routedEntries(config: SystemConfig): Promise<string[]> {
  // by the links' names, as the map itself (sni-files.ts): every change's prune read each route again
  return routedNames(routesDirOf(config));
}

/** The entries a vhosts change's routes load from the per-name map: none while that server is neither linked nor put. */
export async function routeEntriesOf(config: SystemConfig, changes: VhostChange[]): Promise<string[]> {
  const serverPut = changes.some((c) => c.op === 'put' && isSniServer(c.spec));
  if (!serverPut && !(await sniServerLinked(config.nginx.sitesEnabled))) return [];
  const own: string[] = [];
  for (const c of changes) {
    if (c.op === 'put' && c.spec.kind === 'app' && isRouteSpec(c.spec)) own.push(c.spec.fqdn);
    else if (c.op === 'enable') own.push(...(await writtenRouteName(config, c.name)));
  }
  // a switch back to per-name puts the server over routes whose text does not change
  return serverPut ? [...own, ...(await routedEntries(config))] : own;
}

/** The per-name shared server: its map serves every route's own certificate. */
const isSniServer = (spec: VhostSpec) => spec.kind === 'tunnels' && spec.sni === true;
