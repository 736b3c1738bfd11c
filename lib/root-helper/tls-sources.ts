// Where each copy's bytes come from, and how root reads them: the panel's user owns every source
// (certbot runs as that user; the panel makes the self-signed certificates and the client CA), so
// each is read with readOwnedFile (no link, no FIFO, that owner, a size limit). certbot's live
// files are links into its archive: one is followed only when its text is exactly the link certbot
// makes, and then only to the archive path built here, never to what the link says.
import { lstat, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { readOwnedFile, RefusedPathError } from '../system/common/owned-file.ts';
import type { SystemConfig } from '../system/config.ts';
import { ipPanelCertPaths, defaultCertPaths } from '../system/proxy/renderer.ts';
import { pkiPaths } from '../system/pki/openssl-pki.ts';
import { CA_FILE, CERT_FILE, CLIENT_CA_ENTRY, CRL_FILE, DEFAULT_ENTRY, IP_PANEL_ENTRY, KEY_FILE } from './tls-entries.ts';

/** Far above any real file of its kind, far below a memory problem. */
export const MAX_CERT_BYTES = 1024 * 1024;
export const MAX_KEY_BYTES = 64 * 1024;
/** one entry per revoked certificate (~50 bytes of PEM each) */
export const MAX_CRL_BYTES = 8 * 1024 * 1024;

export interface TlsSource {
  /** the file's name in the entry's directory of copies */
  copy: string;
  /** the panel's file */
  path: string;
  maxBytes: number;
  /** certbot's live file: a link into its archive, read by `readLineageFile` */
  lineage?: { configDir: string; fqdn: string; name: 'fullchain' | 'privkey' };
}

/** An entry's sources: a certificate and its key, or the client CA and its CRL. */
export function tlsSources(config: SystemConfig, entry: string): TlsSource[] {
  const pair = (paths: { fullchain: string; privkey: string }): TlsSource[] => [
    { copy: CERT_FILE, path: paths.fullchain, maxBytes: MAX_CERT_BYTES },
    { copy: KEY_FILE, path: paths.privkey, maxBytes: MAX_KEY_BYTES },
  ];
  if (entry === IP_PANEL_ENTRY) return pair(ipPanelCertPaths(config.nginx.selfSignedDir));
  if (entry === DEFAULT_ENTRY) return pair(defaultCertPaths(config.nginx.selfSignedDir));
  if (entry === CLIENT_CA_ENTRY) {
    const pki = pkiPaths(config.pki.dir);
    return [{ copy: CA_FILE, path: pki.caCert, maxBytes: MAX_CERT_BYTES }, { copy: CRL_FILE, path: pki.crl, maxBytes: MAX_CRL_BYTES }];
  }
  const { configDir } = config.acme;
  const live = join(configDir, 'live', entry);
  return [
    { copy: CERT_FILE, path: join(live, 'fullchain.pem'), maxBytes: MAX_CERT_BYTES, lineage: { configDir, fqdn: entry, name: 'fullchain' } },
    { copy: KEY_FILE, path: join(live, 'privkey.pem'), maxBytes: MAX_KEY_BYTES, lineage: { configDir, fqdn: entry, name: 'privkey' } },
  ];
}

/**
 * A source's bytes, or a RefusedPathError naming the path and why; ENOENT is thrown as it comes
 * (a certificate not issued yet).
 */
export function readSource(source: TlsSource, owners: readonly number[]): Promise<Buffer> {
  const rule = { owners, maxBytes: source.maxBytes };
  return source.lineage ? readLineageFile(source.path, source.lineage, rule) : readOwnedFile(source.path, rule);
}

async function readLineageFile(live: string, l: NonNullable<TlsSource['lineage']>, rule: { owners: readonly number[]; maxBytes: number }): Promise<Buffer> {
  const st = await lstat(live);
  // a lineage certbot did not make (a test's, an operator's copy) may hold the file itself
  if (st.isFile()) return readOwnedFile(live, rule);
  if (!st.isSymbolicLink()) throw new RefusedPathError(live, `${kindOf(st)}, not certbot's link or a regular file`);
  const target = await readlink(live);
  const archived = new RegExp(`^\\.\\./\\.\\./archive/${l.fqdn.replace(/\./g, '\\.')}/${l.name}([0-9]{1,9})\\.pem$`).exec(target);
  if (!archived) throw new RefusedPathError(live, `a link to ${JSON.stringify(target)}, not ../../archive/${l.fqdn}/${l.name}<n>.pem`);
  // the owner check of the archive file is what stops a planted directory link on the way there
  return readOwnedFile(join(l.configDir, 'archive', l.fqdn, `${l.name}${archived[1]}.pem`), rule);
}

function kindOf(st: { isFIFO(): boolean; isSocket(): boolean; isDirectory(): boolean }): string {
  if (st.isFIFO()) return 'a FIFO';
  if (st.isSocket()) return 'a socket';
  if (st.isDirectory()) return 'a directory';
  return 'a device';
}
