// The tunnel server's SSH host key (chisel's --keyfile). Without one chisel makes a new key at
// every start, so a client (which the spec runs with --tls-skip-verify) could authenticate nothing
// about the server; with it, clients pin the key's fingerprint with chisel's --fingerprint.
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import { link, stat, unlink } from 'node:fs/promises';
import type { BigIntStats } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../common/atomic-write.ts';
import { readOrNull } from '../common/fs.ts';

/** In chisel's directory, so the tunnel-server backup section carries it. */
const HOST_KEY_FILE = 'host-key.pem';
/**
 * chisel, running as its own user, reads the key through the directory's group (setgid: a new file
 * takes it); no one else may. A key is never rewritten: an earlier release's 0600 key gets this
 * mode and the group from the installer.
 */
export const HOST_KEY_MODE = 0o640;

export function hostKeyPath(dir: string): string {
  return join(dir, HOST_KEY_FILE);
}

/** An SSH wire-format string: uint32 length, then the bytes (RFC 4251 section 5). */
function sshString(bytes: Uint8Array): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(bytes.length);
  return Buffer.concat([length, bytes]);
}

/**
 * What chisel 1.9 prints as `Fingerprint` and its client's --fingerprint compares against:
 * base64 (standard, padded) of SHA-256 over the public key in SSH wire format
 * (ccrypto.FingerprintKey: sha256(ssh.PublicKey.Marshal())). Only ed25519, the kind made here.
 */
export function chiselFingerprint(key: KeyObject): string {
  const pub = createPublicKey(key);
  if (pub.asymmetricKeyType !== 'ed25519') throw new Error(`the tunnel server's host key is ${pub.asymmetricKeyType}, not ed25519`);
  const raw = Buffer.from(pub.export({ format: 'jwk' }).x!, 'base64url');
  const wire = Buffer.concat([sshString(Buffer.from('ssh-ed25519')), sshString(raw)]);
  return createHash('sha256').update(wire).digest('base64');
}

export interface HostKey {
  path: string;
  fingerprint: string;
  created: boolean;
}

/**
 * The key in `dir`, made (ed25519, PKCS#8 PEM, which chisel's ssh.ParsePrivateKey reads) when
 * there is none. An existing key is never replaced: the clients pinned it. It is written to a
 * temporary file and linked into place, which fails when another writer got there first, so two
 * callers (the installer, the panel) never leave different keys behind.
 */
export async function ensureHostKey(dir: string): Promise<HostKey> {
  const path = hostKeyPath(dir);
  const existing = await readOrNull(path);
  if (existing !== null) return { path, fingerprint: chiselFingerprint(createPrivateKey(existing)), created: false };
  const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  const temporary = `${path}.${randomBytes(6).toString('hex')}.new`;
  await writeFileAtomic(temporary, pem, HOST_KEY_MODE);
  try {
    await link(temporary, path);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    return { ...(await ensureHostKey(dir)), created: false };
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
  return { path, fingerprint: chiselFingerprint(createPrivateKey(pem)), created: true };
}

/**
 * Tells one state of the key file from another without reading it: a key put back from a backup
 * is a new inode or a new change time, even when the copy kept its old modification time.
 */
const stateOf = (st: BigIntStats) => `${st.ino}:${st.size}:${st.ctimeNs}:${st.mtimeNs}`;

/**
 * Reads the fingerprint of the key in `dir` as the file is now (null when there is none) and
 * never makes a key. Parsing the PEM costs about 0.7 ms (OpenSSL's decoder) and a stat about
 * 0.05 ms, so the key is parsed again only when the file changed.
 */
export function hostKeyFingerprint(dir: string): () => Promise<string | null> {
  const path = hostKeyPath(dir);
  let last: { state: string; fingerprint: string } | null = null;
  return async () => {
    const st = await stat(path, { bigint: true }).catch((e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return null;
      throw e;
    });
    if (st === null) return null;
    const state = stateOf(st);
    if (last?.state === state) return last.fingerprint;
    // a change between the stat and the read is seen at the next call: the state will differ
    const pem = await readOrNull(path);
    if (pem === null) return null;
    last = { state, fingerprint: chiselFingerprint(createPrivateKey(pem)) };
    return last.fingerprint;
  };
}
