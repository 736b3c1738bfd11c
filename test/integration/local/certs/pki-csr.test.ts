// The openssl PKI's CSR checks, with CSRs made by the openssl CLI: real openssl runs make this an integration test.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { OpensslPki } from '../../../../lib/system/pki/openssl-pki.ts';
import { SystemError } from '../../../../lib/system/types.ts';
import { describeCert, makeCsr, tamperCsr } from '../../../helpers/csr.ts';

const s = suite('pki: CSR checks with the openssl CLI');
let dir: string;
let pki: OpensslPki;

s.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'relay-pki-'));
  pki = new OpensslPki({ openssl: '/usr/bin/openssl', dir, caCommonName: 'relay-panel-test-ca', clientCertDays: 30, timeoutMs: 10_000 });
});
s.after(() => rm(dir, { recursive: true, force: true }));

s('a CSR whose signature does not verify is refused by verifyCsr and signCsr (openssl 3.0 exits 0 on it)', async () => {
  const bad = tamperCsr(makeCsr().csr);
  for (const attempt of [() => pki.verifyCsr(bad), () => pki.signCsr(bad, 'agent:x')]) {
    const error = await attempt().then(() => null, (e: unknown) => e);
    assert.instance(error, SystemError);
    assert.match((error as Error).message, 'Invalid certificate signing request');
  }
});

s('a good CSR verifies, and is signed with the forced subject by the CA', async () => {
  const { csr } = makeCsr('/CN=admin/O=evil');
  await pki.verifyCsr(csr);
  const signed = await pki.signCsr(csr, 'agent:x');
  const text = describeCert(signed.certPem);
  assert.match(text, 'subject=CN = agent:x');
  assert.match(text, 'issuer=CN = relay-panel-test-ca');
  assert.match(describeCert(await pki.caCertificate()), 'subject=CN = relay-panel-test-ca');
});

s.run();
