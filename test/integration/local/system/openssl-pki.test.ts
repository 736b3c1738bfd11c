// The sandbox's openssl PKI (lib/system/pki/openssl-pki.ts): what it issues, checked with the
// openssl CLI and node's X509Certificate. Real openssl runs make this an integration test.
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createSystem, systemConfig, SystemError, type System } from '../../../../lib/system/index.ts';
import { sandboxPaths } from '../../../../lib/system/sandbox-system.ts';
import { timed } from '../../../helpers/timeout.ts';

const execFileAsync = promisify(execFile);

const s = suite('openssl PKI (sandbox paths)');
let dataDir = '';
let system: System;

s.before.each(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'relay-pki-'));
  system = createSystem(systemConfig({}), { dataDir });
});
s.after.each(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

const openssl = (args: string[]) => execFileAsync('/usr/bin/openssl', args, { encoding: 'utf8' });

s('pki: client certificates from our CA, each with its own serial', timed(15_000, async () => {
  const { caPath } = await system.pki.ensureCa();
  const cert = await system.pki.issueClientCert('agent:laptop-1');
  const x = new X509Certificate(cert.certPem);
  assert.is(x.subject, 'CN=agent:laptop-1');
  assert.ok(x.verify(new X509Certificate(await readFile(caPath, 'utf8')).publicKey));
  assert.is(cert.serial, x.serialNumber.toUpperCase());
  const second = await system.pki.issueClientCert('admin');
  assert.is.not(second.serial, cert.serial);
}));

s('pki: PKCS#12 opens with its password only, and uses 3DES/SHA1 for older importers', timed(15_000, async () => {
  const cert = await system.pki.issueClientCert('agent:laptop-1');
  const file = join(dataDir, 'client.p12');
  await writeFile(file, await system.pki.toPkcs12(cert, 'right-pw'));
  // OpenSSL 3 prints the -info lines on stderr
  const info = await openssl(['pkcs12', '-info', '-noout', '-in', file, '-passin', 'pass:right-pw']);
  const text = `${info.stdout}\n${info.stderr}`;
  assert.match(text, /Shrouded Keybag: pbeWithSHA1And3-KeyTripleDES-CBC/);
  assert.match(text, /PKCS7 Encrypted data: pbeWithSHA1And3-KeyTripleDES-CBC/);
  assert.match(text, /MAC: sha1/);
  await openssl(['pkcs12', '-info', '-noout', '-in', file, '-passin', 'pass:wrong-pw']).then(
    () => assert.unreachable('a wrong password must not open it'),
    (e: { stderr: string }) => assert.match(e.stderr, /mac verify|invalid password/i),
  );
  // the certificate and key inside are the ones issued
  const pem = await openssl(['pkcs12', '-in', file, '-passin', 'pass:right-pw', '-nodes', '-clcerts', '-nokeys']);
  assert.is(new X509Certificate(pem.stdout).serialNumber.toUpperCase(), cert.serial);
}));

s('pki: a CSR is signed with the forced subject, whatever it asked for', timed(15_000, async () => {
  const key = join(dataDir, 'csr.key');
  const csrFile = join(dataDir, 'req.csr');
  await openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', '/CN=admin/O=Evil Corp/OU=root',
    '-keyout', key, '-out', csrFile]);
  const signed = await system.pki.signCsr(await readFile(csrFile, 'utf8'), 'agent:forced-1');
  const x = new X509Certificate(signed.certPem);
  assert.is(x.subject, 'CN=agent:forced-1');
  assert.is(signed.serial, x.serialNumber.toUpperCase());
  // the certificate carries the requester's key
  const pub = await openssl(['pkey', '-in', key, '-pubout']);
  assert.is(x.publicKey.export({ type: 'spki', format: 'pem' }).toString(), pub.stdout);
  await system.pki.signCsr('not a csr', 'agent:forced-1').then(() => assert.unreachable(), (e: Error) => assert.instance(e, SystemError));
}));

s('pki: revocation puts the serial in the CRL and the index, once', timed(15_000, async () => {
  const { crlPath } = await system.pki.ensureCa();
  const cert = await system.pki.issueClientCert('agent:laptop-1');
  const kept = await system.pki.issueClientCert('agent:laptop-2');
  const crlSerials = async () => {
    const { stdout } = await openssl(['crl', '-in', crlPath, '-noout', '-text']);
    return [...stdout.matchAll(/Serial Number: ([0-9A-Fa-f]+)/g)].map((m) => m[1]!.toUpperCase());
  };
  assert.equal(await crlSerials(), []);
  await system.pki.revoke(cert.serial);
  await system.pki.revoke(cert.serial); // idempotent
  assert.equal(await crlSerials(), [cert.serial]);
  const index = await readFile(join(sandboxPaths(dataDir).pki, 'index.txt'), 'utf8');
  const status = (serial: string) => index.split('\n').find((l) => l.split('\t')[3] === serial)?.split('\t')[0];
  assert.is(status(cert.serial), 'R');
  assert.is(status(kept.serial), 'V');
  await system.pki.revoke('ABCDEF99').then(() => assert.unreachable(), (e: Error) => assert.match(e.message, 'No certificate'));
}));

s.run();
