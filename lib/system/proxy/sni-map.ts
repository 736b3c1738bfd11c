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
import { TLS_PROTOCOL_LINES } from './template-parts.ts';

/**
 * nginx reads no configuration word longer than 4,094 characters (`too long parameter`), and an RSA
 * chain with its key is 5-10 KB: the PEM text is cut into PARTS pieces of at most PART_CHARS, one
 * map each, and the directive joins them. 16,000 characters hold an RSA-4096 key and a long chain.
 */
const PARTS = 4;
const PART_CHARS = 4000;
const VARIABLES = Array.from({ length: PARTS }, (_, i) => `$relay_sni_pem${i}`);

/** What the server's `ssl_certificate` and `ssl_certificate_key` name: both read the one PEM text. */
export const SNI_DATA = `data:${VARIABLES.join('')}`;

/** A name's entry files inside the entries' directory `namesDir` (`<dir>/names`, a normalized path: joined without path.join, which a sync asks of 1,000 names), one per part (a 253-character name plus `.conf` would pass Linux's 255 per file name: a hash names them). */
export function sniEntryPathsIn(namesDir: string, fqdn: string): string[] {
  const base = `${namesDir}/${createHash('sha256').update(fqdn).digest('hex')}`;
  return VARIABLES.map((_, i) => `${base}.${i}.conf`);
}

/** The fallback's files, one per part: what a name without an entry gets. */
export function sniFallbackPaths(dir: string): string[] {
  return VARIABLES.map((_, i) => join(dir, `fallback.${i}.conf`));
}

/**
 * The maps and the TLS lines of the shared server: a name without an entry (a tunnel whose
 * certificate is not issued yet, an unknown name under the domain) gets the fallback, the default
 * server's self-signed certificate, as the default server would give it.
 */
export function sniMapLines(dir: string): string[] {
  assertAbsolutePath(dir);
  // the fallback's name as a glob that matches only it: nginx takes a glob that matches nothing,
  // so a configuration rendered where root makes no map (the sandbox's nginx -t) still loads
  return VARIABLES.flatMap((variable, i) => [
    `map $ssl_server_name ${variable} {`,
    `    include "${join(dir, `fallback[.]${i}.conf`)}";`,
    `    include "${join(dir, 'names')}/*.${i}.conf";`,
    '}',
  ]);
}

export function sniTlsLines(): string[] {
  return [`ssl_certificate ${SNI_DATA};`, `ssl_certificate_key ${SNI_DATA};`, ...TLS_PROTOCOL_LINES];
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

/** A name's entry (`default` for the fallback), one text per part, as nginx reads a quoted map value. */
export function sniEntries(name: string, pem: string): string[] {
  if (!PEM_TEXT.test(pem)) throw new Error('unexpected characters in the PEM text');
  if (!/^[a-z0-9.-]+$/.test(name)) throw new Error(`not a name: ${name}`);
  if (pem.length > PARTS * PART_CHARS) throw new Error(`${pem.length} characters of PEM, more than the ${PARTS * PART_CHARS} the map holds`);
  return VARIABLES.map((_, i) => `${name} "${pem.slice(i * PART_CHARS, (i + 1) * PART_CHARS)}";\n`);
}
