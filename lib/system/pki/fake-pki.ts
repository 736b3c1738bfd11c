// A stand-in PKI for tests and embedders (lib/testing.ts): the PkiAdapter contract without openssl.
// Nothing it returns is a real certificate, key, PKCS#12 or CRL: the PEM blocks say FAKE and carry
// the subject and serial as JSON, so nginx or a TLS stack would refuse them. Serials behave like
// the real ones: uppercase hex from 0x1000 upward; revoking twice is a no-op, an unknown serial fails.
import { assertClientCommonName } from '../names.ts';
import { InvalidCsrError, SystemError, type IssuedClientCert, type PkiAdapter } from '../types.ts';

const fakePem = (label: string, content: object) =>
  `-----BEGIN FAKE ${label}-----\n${Buffer.from(JSON.stringify(content)).toString('base64')}\n-----END FAKE ${label}-----\n`;

export interface FakePki extends PkiAdapter {
  /** Serials revoked so far (uppercase hex), as the CRL would list them. */
  revokedSerials(): string[];
}

/** `dir` only names the CA and CRL paths vhosts point at; nothing is written there. */
export function createFakePki(dir: string): FakePki {
  const paths = { caPath: `${dir}/fake-ca.pem`, crlPath: `${dir}/fake-crl.pem` };
  const issued = new Set<string>();
  const revoked = new Set<string>();
  let next = 0x1000;
  const issue = (commonName: string, days: number) => {
    assertClientCommonName(commonName);
    const serial = (next++).toString(16).toUpperCase();
    issued.add(serial);
    const expiresAt = new Date(Date.now() + days * 86_400_000).toISOString();
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
