// What root writes into the per-name certificate map: a chain and key nginx can load, in canonical
// PEM only (nginx writes a `data:` value that fails to load into its error log, key included), cut
// into parts no longer than the 4,094 characters nginx reads in one word. Pairs made with openssl.
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { canonicalPem, sniEntries } from '../../../../lib/system/proxy/sni-map.ts';
import type { CertPaths } from '../../../../lib/system/types.ts';
import { certPairs } from '../../../helpers/cert-pairs.ts';

const s = suite('per-name certificate map: what an entry may hold');
let dir = '';
let pairs: Record<'a' | 'b', CertPaths>;
s.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'relay-sni-map-'));
  pairs = await certPairs(dir, { a: 'a.sni.test', b: 'b.sni.test' });
});
s.after(() => rm(dir, { recursive: true, force: true }));

const bytes = (path: string) => readFile(path);

s('a chain and its key: each certificate and the key written again as PEM, text between the blocks dropped', async () => {
  const chain = Buffer.concat([Buffer.from('Bag Attributes "$evil";\n'), await bytes(pairs.a.fullchain), Buffer.from('junk "\\ $x\n'), await bytes(pairs.b.fullchain)]);
  const pem = canonicalPem(chain, await bytes(pairs.a.privkey));
  assert.not.match(pem, /["$\\;]|Bag|junk/);
  const certs = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)!;
  assert.equal(certs.map((c) => new X509Certificate(c).subject), ['CN=a.sni.test', 'CN=b.sni.test']);
  assert.match(pem, /-----BEGIN PRIVATE KEY-----\n[A-Za-z0-9+/=\n]+-----END PRIVATE KEY-----\n$/);
});

s('refused: a key of another certificate, an encrypted key, no certificate', async () => {
  assert.throws(() => canonicalPem(Buffer.from(''), Buffer.from('')), /no certificate/);
  const chain = await bytes(pairs.a.fullchain);
  assert.throws(() => canonicalPem(chain, Buffer.from('not a key')));
  const other = await bytes(pairs.b.privkey);
  assert.throws(() => canonicalPem(chain, other), /does not match/);
  const encrypted = join(dir, 'a.enc.key');
  execFileSync('/usr/bin/openssl', ['pkcs8', '-topk8', '-v2', 'aes256', '-passout', 'pass:secret', '-in', pairs.a.privkey, '-out', encrypted]);
  assert.throws(() => canonicalPem(chain, Buffer.from(execFileSync('/bin/cat', [encrypted]))));
});

s('parts: four, each at most 4,000 characters, joined back to the text; past 16,000 characters refused', async () => {
  const pem = canonicalPem(await bytes(pairs.a.fullchain), await bytes(pairs.a.privkey));
  const long = `${pem}${'A'.repeat(9000)}\n`;
  const parts = sniEntries('a.sni.test', long).map((entry) => /^a\.sni\.test "([^"]*)";\n$/.exec(entry)![1]!);
  assert.is(parts.length, 4);
  assert.ok(parts.every((p) => p.length <= 4000));
  assert.is(parts.join(''), long);
  assert.throws(() => sniEntries('a.sni.test', 'A'.repeat(16001)), /more than the 16000/);
  assert.throws(() => sniEntries('a.sni.test', 'say "hi"'), /unexpected characters/);
  assert.throws(() => sniEntries('A.sni.test', pem), /not a name/);
});

s.run();
