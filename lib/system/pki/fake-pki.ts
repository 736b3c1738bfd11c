// A stand-in PKI for tests and embedders (lib/testing.ts): the PkiAdapter contract and the sandbox's
// server certificates without openssl. Nothing it returns is a real certificate, key, PKCS#12 or
// CRL: the PEM blocks say FAKE and carry the subject and serial as JSON, so nginx or a TLS stack
// would refuse them. Serials behave like the real ones: uppercase hex from 0x1000 upward; revoking
// twice is a no-op, an unknown serial fails.
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { assertClientCommonName } from '../common/names.ts';
import { InvalidCsrError, SystemError, type IssuedClientCert, type PkiAdapter } from '../types.ts';
import { certificateExpiry, certificateNames, type ServerCertMaker } from './self-signed.ts';

const fakePem = (label: string, content: object) =>
  `-----BEGIN FAKE ${label}-----\n${Buffer.from(JSON.stringify(content)).toString('base64')}\n-----END FAKE ${label}-----\n`;

const FAKE_CERTIFICATE = /^-----BEGIN FAKE CERTIFICATE-----\n([A-Za-z0-9+/=]+)\n/;

export interface FakePki extends PkiAdapter {
  /** Serials revoked so far (uppercase hex), as the CRL would list them. */
  revokedSerials(): string[];
}

/**
 * `dir` only names the CA and CRL paths vhosts point at; nothing is written there. `now` is the
 * app's clock, so a test's manual clock sets the certificates' expiry.
 */
export function createFakePki(dir: string, now: () => number = Date.now): FakePki {
  const paths = { caPath: `${dir}/fake-ca.pem`, crlPath: `${dir}/fake-crl.pem` };
  const issued = new Set<string>();
  const revoked = new Set<string>();
  let next = 0x1000;
  const issue = (commonName: string, days: number) => {
    assertClientCommonName(commonName);
    const serial = (next++).toString(16).toUpperCase();
    issued.add(serial);
    const expiresAt = new Date(now() + days * 86_400_000).toISOString();
    return { serial, expiresAt, certPem: fakePem('CERTIFICATE', { subject: `CN=${commonName}`, serial, expiresAt }) };
  };
  // a fake cannot check a signature: any PEM certificate request passes
  const verifyCsr = async (csrPem: string) => {
    if (!/^-----BEGIN (NEW )?CERTIFICATE REQUEST-----/m.test(csrPem)) throw new InvalidCsrError('not a PEM certificate request');
  };
  return {
    ensureCa: async () => paths,
    async issueClientCert(commonName, days = 825): Promise<IssuedClientCert> {
      const cert = issue(commonName, days);
      return { ...cert, keyPem: fakePem('PRIVATE KEY', { serial: cert.serial }) };
    },
    toPkcs12: async (cert, password) => Buffer.from(fakePem('PKCS12', { serial: cert.serial, passwordLength: password.length })),
    caCertificate: async () => fakePem('CERTIFICATE', { subject: 'CN=fake relay-panel client CA' }),
    verifyCsr,
    async signCsr(csrPem, commonName) {
      await verifyCsr(csrPem);
      return issue(commonName, 825);
    },
    async revoke(serial) {
      const normalized = serial.toUpperCase();
      if (!issued.has(normalized)) throw new SystemError(`No certificate with serial ${serial}`);
      revoked.add(normalized);
    },
    writeCrl: async () => paths.crlPath,
    revokedSerials: () => [...revoked],
  };
}

/**
 * Server certificates as FAKE PEM files holding subject, names and notAfter, written where openssl
 * would write them (key 0600). Expiry reads them back; a real certificate found there (put by hand)
 * is read as openssl's would be.
 */
export function createFakeServerCerts(now: () => number = Date.now): ServerCertMaker {
  return {
    async create(req) {
      await mkdir(dirname(req.paths.fullchain), { recursive: true });
      await mkdir(dirname(req.paths.privkey), { recursive: true, mode: 0o700 });
      const notAfter = new Date(now() + req.days * 86_400_000).toISOString();
      const subject = `CN=${req.commonName}`;
      await writeFile(req.paths.fullchain, fakePem('CERTIFICATE', { subject, subjectAltNames: req.subjectAltNames, notAfter, isCa: req.isCa ?? false }));
      await writeFile(req.paths.privkey, fakePem('PRIVATE KEY', { subject }), { mode: 0o600 });
      await chmod(req.paths.privkey, 0o600);
    },
    async expiry(path) {
      let pem: string;
      try {
        pem = await readFile(path, 'utf8');
      } catch {
        return null;
      }
      const fake = FAKE_CERTIFICATE.exec(pem);
      if (!fake) return certificateExpiry(path);
      const { notAfter } = JSON.parse(Buffer.from(fake[1]!, 'base64').toString()) as { notAfter: string };
      return new Date(notAfter);
    },
    async names(path) {
      const pem = await readFile(path, 'utf8').catch(() => null);
      if (pem === null) return null;
      const fake = FAKE_CERTIFICATE.exec(pem);
      if (!fake) return certificateNames(path);
      const { subjectAltNames = [] } = JSON.parse(Buffer.from(fake[1]!, 'base64').toString()) as { subjectAltNames?: string[] };
      return subjectAltNames.filter((n) => n.startsWith('DNS:')).map((n) => n.slice('DNS:'.length));
    },
  };
}
