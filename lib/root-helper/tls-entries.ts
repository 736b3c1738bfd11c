// The root-owned copies of TLS material that the root helper's vhosts name (config nginx.tlsDir):
// one directory per source, `<fqdn>/` for a certbot lineage, `ip-panel/` and `default/` for the
// self-signed certificates, `client-ca/` for the client CA and its CRL. nginx's master runs as root
// and loads these files, so they must never be the panel's own files or links it could plant.
import { join } from 'node:path';
import { assertFqdn, isFqdn } from '../system/common/names.ts';
import { isCopyPath, tlsPathDirectives } from './tls-directives.ts';
import { isRouteSpec, isRouteText, isVhostNameOfKind, type TemplateContext } from '../system/proxy/templates.ts';
import type { VhostSpec } from '../system/types.ts';
import { CERT_FILE, copiedCertPaths, DEFAULT_ENTRY, KEY_FILE } from '../system/proxy/tls-copy-paths.ts';
import { SNI_DATA } from '../system/proxy/sni-map.ts';

export { CERT_FILE, DEFAULT_ENTRY, KEY_FILE };

export const IP_PANEL_ENTRY = 'ip-panel';
export const CLIENT_CA_ENTRY = 'client-ca';
const FIXED_ENTRIES = [IP_PANEL_ENTRY, DEFAULT_ENTRY, CLIENT_CA_ENTRY];

/** The file names inside the client CA's entry (a certificate's are tls-copy-paths.ts's). */
export const CA_FILE = 'ca.pem';
export const CRL_FILE = 'crl.pem';

/** A name a directory of tlsDir may have; the fixed ones have no dot, so no domain name is one of them. */
export function isTlsEntry(name: string): boolean {
  return FIXED_ENTRIES.includes(name) || isFqdn(name);
}

/** What the helper's templates name instead of the panel's files. */
export function copiedTlsContext(tlsDir: string): Pick<TemplateContext, 'mtls' | 'ipPanelCert' | 'defaultCert' | 'certFor'> {
  return {
    mtls: { caPath: join(tlsDir, CLIENT_CA_ENTRY, CA_FILE), crlPath: join(tlsDir, CLIENT_CA_ENTRY, CRL_FILE) },
    ipPanelCert: copiedCertPaths(tlsDir, IP_PANEL_ENTRY),
    defaultCert: copiedCertPaths(tlsDir, DEFAULT_ENTRY),
    certFor: (fqdn) => copiedCertPaths(tlsDir, assertFqdn(fqdn)),
  };
}

/** The entries each kind of vhost names (templates.ts: the panels verify client certificates). */
const ENTRIES_OF_KIND: Record<VhostSpec['kind'], (fqdn: string) => string[]> = {
  'ip-panel': () => [IP_PANEL_ENTRY, CLIENT_CA_ENTRY],
  default: () => [DEFAULT_ENTRY],
  panel: (fqdn) => [fqdn, CLIENT_CA_ENTRY],
  'auth-portal': (fqdn) => [fqdn],
  'tunnel-server': (fqdn) => [fqdn],
  app: (fqdn) => [fqdn],
  site: (fqdn) => [fqdn],
  // the shared apps' server: the wildcard lineage of its domain
  tunnels: (fqdn) => [fqdn],
};

/**
 * The entries a vhost of this spec loads (a put): its kind's, with the lineage it names (`cert`,
 * the wildcard its request was checked to cover it with) in place of its own name's.
 */
export function entriesOfSpec(spec: VhostSpec): string[] {
  if (spec.kind === 'ip-panel' || spec.kind === 'default') return ENTRIES_OF_KIND[spec.kind]('');
  // a route names no certificate: the shared server serves the wildcard, or per name its own from
  // root's map, whose copies are staged only while that server is linked (vhost-entries.ts)
  if (isRouteSpec(spec)) return [];
  // per name, the shared server loads the map, whose fallback is the default server's certificate
  if (spec.kind === 'tunnels' && spec.sni) return [DEFAULT_ENTRY];
  const cert = (spec.kind === 'app' || spec.kind === 'site') && spec.cert ? spec.cert : spec.fqdn;
  return ENTRIES_OF_KIND[spec.kind](assertFqdn(cert));
}

/**
 * The entries a written vhost loads, read from its text (root's own file in sites-available): the
 * entry of each TLS directive that names a copy. A vhost serving another lineage (a wildcard) is
 * known so, as its file name says only its own name. A text that names no copy at all (an earlier
 * release's vhost naming the panel's files, a placeholder) falls back to its file name.
 */
export function entriesOfVhostText(tlsDir: string, name: string, text: string): string[] {
  if (isRouteText(text)) return [];
  if (text.includes(SNI_DATA)) return [DEFAULT_ENTRY];
  const entries = new Set<string>();
  for (const d of tlsPathDirectives(text)) {
    if (!isCopyPath(tlsDir, d.path)) continue;
    const [entry, file, ...rest] = d.path.slice(tlsDir.length + 1).split('/');
    if (entry && file && rest.length === 0 && isTlsEntry(entry)) entries.add(entry);
  }
  return entries.size > 0 ? [...entries] : entriesOfVhost(name);
}

/**
 * The entries a relay vhost file of this name loads when it serves its own name's lineage; none
 * for any other file. What a vhost's text does not say (tls-paths-rewrite.ts: an earlier release's
 * vhost, rewritten to the copies of the entries its name stands for).
 */
export function entriesOfVhost(name: string): string[] {
  for (const [kind, entries] of Object.entries(ENTRIES_OF_KIND) as Array<[VhostSpec['kind'], (fqdn: string) => string[]]>) {
    if (!isVhostNameOfKind(name, kind)) continue;
    if (kind === 'ip-panel' || kind === 'default') return entries('');
    const fqdn = name.slice(`relay-${kind}-`.length, -'.conf'.length);
    return isFqdn(fqdn) ? entries(fqdn) : [];
  }
  return [];
}
