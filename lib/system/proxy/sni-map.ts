// The shared tunnels' server in per-name mode serves each tunnel's own certificate, chosen by the
// name the client asks for (SNI): nginx 1.22 loads `ssl_certificate data:$var` from a variable at
// each full handshake, and the variable is a `map` from the name to the certificate chain and key
// as PEM text. The map's entries are root's files (0600, sni-files.ts), never a file the workers or
// the panel's user can read, so the keys stay in nginx's memory as they do with a server per name.
// One server and no TLS context per name: a change at 1,000 tunnels needs no nginx -t and reload
// over 1,000 TLS contexts (docs/decisions.md, "One server for the per-name tunnels").
import { createHash, createPrivateKey, X509Certificate } from 'node:crypto';
import { join } from 'node:path';
import { assertAbsolutePath } from '../common/names.ts';

const VARIABLE = '$relay_sni_pem';

/** What the server's `ssl_certificate` and `ssl_certificate_key` name: both read the one PEM text. */
export const SNI_DATA = `data:${VARIABLE}`;

/** Where the entries are, inside `dir`: one file per name, and the fallback for a name without one. */
export function sniEntryPath(dir: string, fqdn: string): string {
  // a name of 253 characters plus `.conf` would pass Linux's 255 per file name
  return join(dir, 'names', `${createHash('sha256').update(fqdn).digest('hex')}.conf`);
}

export function sniFallbackPath(dir: string): string {
  return join(dir, 'fallback.conf');
}

/**
 * The map and the TLS lines of the shared server: a name without an entry (a tunnel whose
 * certificate is not issued yet, an unknown name under the domain) gets the fallback, the default
 * server's self-signed certificate, as the default server would give it.
 */
export function sniMapLines(dir: string): string[] {
  assertAbsolutePath(dir);
  // the fallback's name as a glob that matches only it: nginx takes a glob that matches nothing,
  // so a configuration rendered where root makes no map (the sandbox's nginx -t) still loads
  const fallback = sniFallbackPath(dir).replace(/\.conf$/, '[.]conf');
  return [
    `map $ssl_server_name ${VARIABLE} {`,
    `    include "${fallback}";`,
    `    include "${join(dir, 'names')}/*.conf";`,
    '}',
  ];
}

export function sniTlsLines(): string[] {
  return [`ssl_certificate ${SNI_DATA};`, `ssl_certificate_key ${SNI_DATA};`, 'ssl_protocols TLSv1.2 TLSv1.3;', 'ssl_prefer_server_ciphers off;'];
}

/** PEM as node writes it: base64 lines between BEGIN and END lines, nothing nginx would read as a quote, escape or variable. */
const PEM_TEXT = /^[A-Za-z0-9+/=\n -]+$/;

/**
 * The chain and key as one canonical PEM text, from what certbot or the copies hold: every
 * certificate parsed and written again, the key parsed, unencrypted and matching the first
 * certificate. nginx writes a `data:` value that fails to load into its error log, key included,
 * so nothing that could fail to load is ever written. Throws an Error saying what is wrong.
 */
export function canonicalPem(chain: Buffer, key: Buffer): string {
  const blocks = chain.toString('latin1').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error('no certificate');
  const certs = blocks.map((block) => new X509Certificate(block));
  const keyObject = createPrivateKey({ key, format: 'pem' });
  if (!certs[0]!.checkPrivateKey(keyObject)) throw new Error('the key does not match the certificate');
  const pem = [...certs.map((c) => c.toString()), keyObject.export({ type: 'pkcs8', format: 'pem' }) as string].join('');
  if (!PEM_TEXT.test(pem)) throw new Error('unexpected characters in the PEM text');
  return pem;
}

/** One entry of the map (`default` for the fallback), as nginx reads a quoted map value. */
export function sniEntry(name: string, pem: string): string {
  if (!PEM_TEXT.test(pem)) throw new Error('unexpected characters in the PEM text');
  if (!/^[a-z0-9.-]+$/.test(name)) throw new Error(`not a name: ${name}`);
  return `${name} "${pem}";\n`;
}
