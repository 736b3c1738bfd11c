import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { attributesOf, commonNameOf } from '../../../lib/auth/distinguished-name.ts';

// `agent:caf\C3\A9` was read as `agent:cafÃ©` (each hex escape taken as a
// character instead of a UTF-8 byte). Every escape branch of RFC 4514 as OpenSSL prints it.

const s = suite('distinguished names');

const CASES: [dn: string, commonName: string | null][] = [
  ['CN=agent:laptop-1', 'agent:laptop-1'],
  ['CN=agent:laptop-1,OU=ops,O=Relay Corp', 'agent:laptop-1'],
  // hex pairs are UTF-8 bytes, in either case
  ['CN=agent:caf\\C3\\A9', 'agent:café'],
  ['CN=agent:caf\\c3\\a9', 'agent:café'],
  ['CN=\\E6\\97\\A5\\E6\\9C\\AC', '日本'],
  ['CN=agent:\\F0\\9F\\98\\80', 'agent:😀'],
  ['CN=a\\2Cb', 'a,b'],
  ['CN=nul\\00', 'nul\u0000'],
  // escaped specials
  ['CN=Relay\\, Corp', 'Relay, Corp'],
  ['CN=a\\+b', 'a+b'],
  ['CN=\\"quoted\\"', '"quoted"'],
  ['CN=back\\\\slash', 'back\\slash'],
  ['CN=\\<tag\\>', '<tag>'],
  ['CN=semi\\;colon', 'semi;colon'],
  ['CN=a\\=b', 'a=b'],
  // leading `#` and space, trailing space
  ['CN=\\#hash', '#hash'],
  ['CN=\\ lead', ' lead'],
  ['CN=trail\\ ', 'trail '],
  ['CN=\\ both\\ ,O=x', ' both '],
  // multi-valued RDNs and CN not first
  ['CN=agent:x+OU=ops,O=Relay', 'agent:x'],
  ['OU=ops+CN=agent:y,O=Relay', 'agent:y'],
  ['O=Relay Corp,OU=ops,CN=agent:z', 'agent:z'],
  ['O=Relay\\, Inc.,CN=agent:after-escape', 'agent:after-escape'],
  ['cn=lower-type', 'lower-type'],
  ['O=x,CN=first,CN=second', 'first'],
  ['CN=', ''],
  // no CN, or malformed: no common name at all
  ['O=Relay Corp,OU=ops', null],
  ['', null],
  ['CN=dangling\\', null],
  ['CN=bad\\q', null],
  ['CN=half\\C', null],
  ['CN=not-utf8\\C3', null],
  ['CN=overlong\\C0\\AF', null],
  ['CN=ok,garbage', null],
  ['CN=wide\u0100', null],
];

for (const [dn, expected] of CASES) {
  s(`${JSON.stringify(dn)} -> ${JSON.stringify(expected)}`, () => {
    assert.is(commonNameOf(dn), expected);
  });
}

s('raw UTF-8 bytes in the header (latin1-decoded by the HTTP layer) decode as UTF-8 too', () => {
  assert.is(commonNameOf(`CN=agent:${Buffer.from('café').toString('latin1')}`), 'agent:café');
});

s('attributes keep their order, multi-valued RDNs flattened', () => {
  assert.equal(attributesOf('CN=a+OU=b\\,c,O=d'), [
    { type: 'CN', value: 'a' },
    { type: 'OU', value: 'b,c' },
    { type: 'O', value: 'd' },
  ]);
});

s('what OpenSSL prints with RFC 2253 flags (as nginx builds $ssl_client_s_dn) reads back as the common name', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-dn-'));
  const openssl = (...args: string[]) => promisify(execFile)('openssl', args);
  const commonName = 'agent:café \\+<a>;#="q"\\\\ ';
  try {
    await openssl('req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-utf8',
      '-keyout', join(dir, 'k.pem'), '-out', join(dir, 'c.pem'), '-subj', `/O=Relay, Corp/OU=ops+L=x/CN=${commonName}`);
    const { stdout } = await openssl('x509', '-in', join(dir, 'c.pem'), '-noout', '-subject', '-nameopt', 'RFC2253');
    const dn = stdout.trim().replace(/^subject=/, '');
    assert.match(dn, 'caf\\C3\\A9');
    assert.is(commonNameOf(dn), 'agent:café +<a>;#="q"\\ ');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

s('remembered common names stay right past the cache bound, malformed DNs stay refused', () => {
  for (let round = 0; round < 2; round++) {
    for (let i = 0; i < 1500; i++) assert.is(commonNameOf(`CN=agent:n${i},O=Relay`), `agent:n${i}`);
    assert.is(commonNameOf('CN=agent:x\\'), null);
    assert.is(commonNameOf('O=no-common-name'), null);
  }
});

s.run();
