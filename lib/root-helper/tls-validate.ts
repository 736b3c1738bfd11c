// What a copy for nginx may hold: PEM blocks only, each one what its place needs (certificates that
// parse, one private key that parses and belongs to the first certificate, one CRL block). A file
// that holds anything else is refused with its path, so nginx's root master never parses bytes the
// helper did not look at. node has no CRL parser: the block's shape is checked here, its content by
// nginx -t on the copy.
import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { RefusedPathError } from '../system/common/owned-file.ts';

export interface PemBlock {
  label: string;
  /** the whole block, BEGIN and END lines included */
  text: string;
  body: string;
}

const BLOCK = /-----BEGIN ([A-Z0-9 ]{1,40})-----\r?\n([A-Za-z0-9+/=\r\n]*?)-----END \1-----/g;
const KEY_LABELS = ['PRIVATE KEY', 'RSA PRIVATE KEY', 'EC PRIVATE KEY'];

/** The PEM blocks of a file that holds PEM blocks and whitespace, nothing else. */
export function pemBlocks(path: string, bytes: Buffer): PemBlock[] {
  const text = bytes.toString('latin1');
  const blocks: PemBlock[] = [];
  let outside = '';
  let at = 0;
  for (const m of text.matchAll(BLOCK)) {
    outside += text.slice(at, m.index);
    blocks.push({ label: m[1]!, text: m[0], body: m[2]!.replace(/\s/g, '') });
    at = m.index! + m[0].length;
  }
  outside += text.slice(at);
  if (blocks.length === 0) throw new RefusedPathError(path, 'no PEM block');
  if (/\S/.test(outside)) throw new RefusedPathError(path, 'holds something besides PEM blocks');
  return blocks;
}

/** Every block a certificate that parses; the first is the one served (or the CA's). */
export function checkCertificates(path: string, bytes: Buffer): X509Certificate[] {
  return pemBlocks(path, bytes).map((block, i) => {
    if (block.label !== 'CERTIFICATE') throw new RefusedPathError(path, `block ${i + 1} is ${block.label}, not a CERTIFICATE`);
    try {
      return new X509Certificate(block.text);
    } catch (e) {
      throw new RefusedPathError(path, `certificate ${i + 1} does not parse (${(e as Error).message})`);
    }
  });
}

/** One private key, unencrypted (nginx would ask for a passphrase); EC parameters may come with it. */
export function checkPrivateKey(path: string, bytes: Buffer): KeyObject {
  const blocks = pemBlocks(path, bytes).filter((b) => b.label !== 'EC PARAMETERS');
  if (blocks.length !== 1 || !KEY_LABELS.includes(blocks[0]!.label)) {
    throw new RefusedPathError(path, `not one private key (${blocks.map((b) => b.label).join(', ') || 'EC parameters only'})`);
  }
  try {
    return createPrivateKey({ key: blocks[0]!.text, format: 'pem' });
  } catch (e) {
    throw new RefusedPathError(path, `the private key does not parse (${(e as Error).message})`);
  }
}

/** The key must be the served certificate's: nginx would load a mismatched pair only to fail at start. */
export function checkKeyPair(keyPath: string, certificate: X509Certificate, key: KeyObject): void {
  if (!certificate.checkPrivateKey(key)) throw new RefusedPathError(keyPath, `not the key of the certificate for ${certificate.subject.replace(/\n/g, ', ')}`);
}

/** One X509 CRL block of DER (a SEQUENCE), nothing else. */
export function checkCrl(path: string, bytes: Buffer): void {
  const blocks = pemBlocks(path, bytes);
  if (blocks.length !== 1 || blocks[0]!.label !== 'X509 CRL') throw new RefusedPathError(path, `not one X509 CRL block (${blocks.map((b) => b.label).join(', ')})`);
  const der = Buffer.from(blocks[0]!.body, 'base64');
  if (der.length < 2 || der[0] !== 0x30) throw new RefusedPathError(path, 'the X509 CRL block is not DER');
}
