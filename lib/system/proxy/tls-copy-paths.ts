// Where root's copies of the TLS material are (config nginx.tlsDir: lib/root-helper/tls-copies.ts
// makes them): one directory per entry, a certificate and its key in each. Here, below the root
// helper, because nginx's own control (host.ts) builds the per-name certificate map from them too.
import { join } from 'node:path';
import type { SystemConfig } from '../config.ts';
import type { CertPaths } from '../types.ts';

export const DEFAULT_ENTRY = 'default';

/** The file names inside an entry: a certificate and its key. */
export const CERT_FILE = 'fullchain.pem';
export const KEY_FILE = 'privkey.pem';

export function copiedCertPaths(tlsDir: string, entry: string): CertPaths {
  return { fullchain: join(tlsDir, entry, CERT_FILE), privkey: join(tlsDir, entry, KEY_FILE) };
}

/**
 * Whether nginx's vhosts name root's copies: only when the panel has a user of its own. With
 * runAs null the panel is root, the certificates, keys, CA and CRL are root's own files, and no
 * copy is made, refreshed or pruned.
 */
export function usesTlsCopies(config: Pick<SystemConfig, 'systemd'>): boolean {
  return config.systemd.runAs !== null;
}

/** The per-name certificate map's directory: in tlsDir, whose entries are names and fixed words only, so none is `sni`. */
export function sniDirOf(config: Pick<SystemConfig, 'nginx'>): string {
  return join(config.nginx.tlsDir, 'sni');
}
