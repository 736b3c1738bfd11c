// The tunnel server's host key: chisel 1.9's own fingerprint for a fixed key, made once (0640:
// chisel's own user reads it through the directory's group), never replaced.
import { generateKeyPairSync, createPrivateKey } from 'node:crypto';
import { copyFile, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { chiselFingerprint, ensureHostKey, hostKeyFingerprint, hostKeyPath } from '../../../lib/system/tunnel-server/host-key.ts';

const FIXTURE = new URL('../../fixtures/chisel-host-key/host-key.pem', import.meta.url);
/**
 * What a real chisel printed for the fixture: `chisel server --keyfile host-key.pem` logged
 * "server: Fingerprint i7MrcgwAumk8YEttcyeVngWmY+DvhV46EF1hawtrALQ=" (chisel 1.9 source build).
 */
const CHISEL_PRINTED = 'i7MrcgwAumk8YEttcyeVngWmY+DvhV46EF1hawtrALQ=';

const s = suite('tunnel server host key');
let dir = '';
s.before.each(async () => {
  dir = await mkdtemp(join(tmpdir(), 'relay-host-key-'));
});
s.after.each(async () => {
  await rm(dir, { recursive: true, force: true });
});

s('the fingerprint is the one chisel 1.9 prints for the same key (base64 SHA-256 of the SSH public key)', async () => {
  assert.is(chiselFingerprint(createPrivateKey(await readFile(FIXTURE, 'utf8'))), CHISEL_PRINTED);
});

s('made once as an ed25519 PKCS#8 PEM, 0640; a second call keeps it', async () => {
  const first = await ensureHostKey(dir);
  assert.equal([first.path, first.created], [hostKeyPath(dir), true]);
  assert.is((await stat(first.path)).mode & 0o7777, 0o640);
  const pem = await readFile(first.path, 'utf8');
  assert.match(pem, /^-----BEGIN PRIVATE KEY-----\n/);
  assert.is(createPrivateKey(pem).asymmetricKeyType, 'ed25519');
  const again = await ensureHostKey(dir);
  assert.equal([again.fingerprint, again.created], [first.fingerprint, false]);
  assert.is(await readFile(first.path, 'utf8'), pem);
  assert.equal(await readdir(dir), ['host-key.pem'], 'no temporary file left');
});

s('an existing key (a restored backup, an earlier install) is kept and fingerprinted', async () => {
  await copyFile(FIXTURE, hostKeyPath(dir));
  const key = await ensureHostKey(dir);
  assert.equal([key.fingerprint, key.created], [CHISEL_PRINTED, false]);
});

s('callers racing on a box without a key all end with one key', async () => {
  const keys = await Promise.all([1, 2, 3, 4].map(() => ensureHostKey(dir)));
  assert.is(new Set(keys.map((k) => k.fingerprint)).size, 1);
  assert.is(keys.filter((k) => k.created).length, 1);
  assert.is(chiselFingerprint(createPrivateKey(await readFile(hostKeyPath(dir), 'utf8'))), keys[0]!.fingerprint);
});

s('a key of another kind is refused, never replaced', async () => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  await writeFile(hostKeyPath(dir), rsa, { mode: 0o600 });
  try {
    await ensureHostKey(dir);
    assert.unreachable('an RSA key has no chisel fingerprint here');
  } catch (e) {
    assert.match((e as Error).message, 'is rsa, not ed25519');
  }
  assert.is(await readFile(hostKeyPath(dir), 'utf8'), rsa);
});

s('reading the fingerprint makes no key; it is the file as it is now, even a copy that kept the old times', async () => {
  const read = hostKeyFingerprint(dir);
  assert.is(await read(), null);
  assert.equal(await readdir(dir), [], 'no key made');
  // whole seconds, as tar and cp --preserve keep them
  const backedUpAt = 1_700_000_000;
  await copyFile(FIXTURE, hostKeyPath(dir));
  await utimes(hostKeyPath(dir), backedUpAt, backedUpAt);
  assert.is(await read(), CHISEL_PRINTED);
  assert.is(await read(), CHISEL_PRINTED, 'the same file, the same fingerprint');
  // another key of the same size written in place with the same times: only the change time moved
  const before = await stat(hostKeyPath(dir), { bigint: true });
  // the kernel stamps file times from its coarse clock, a tick of up to 10 ms
  await delay(25);
  const other = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  await writeFile(hostKeyPath(dir), other);
  await utimes(hostKeyPath(dir), backedUpAt, backedUpAt);
  const after = await stat(hostKeyPath(dir), { bigint: true });
  assert.equal([after.ino, after.size, after.mtimeNs], [before.ino, before.size, before.mtimeNs]);
  assert.is(await read(), chiselFingerprint(createPrivateKey(other)));
  await rm(hostKeyPath(dir));
  assert.is(await read(), null, 'a key removed is no key');
});

s.run();
