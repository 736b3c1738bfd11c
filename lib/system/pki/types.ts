// The PKI adapter as the domain services see it: openssl-pki.ts drives openssl, fake-pki.ts stands in for unit tests.

export interface SignedClientCert {
  serial: string; // uppercase hex, as nginx reports $ssl_client_serial
  certPem: string;
  /** notAfter, ISO 8601 UTC: callers record it without parsing the PEM (the fake PKI's is no X.509). */
  expiresAt: string;
}

export interface IssuedClientCert extends SignedClientCert {
  keyPem: string;
}

export interface PkiAdapter {
  ensureCa(): Promise<{ caPath: string; crlPath: string }>;
  /** CN is `admin` or `agent:<label>`. */
  issueClientCert(commonName: string, days?: number): Promise<IssuedClientCert>;
  toPkcs12(cert: IssuedClientCert, password: string): Promise<Buffer>;
  /** The CA certificate (PEM) clients trust the panel's client certificates by. */
  caCertificate(): Promise<string>;
  /** Rejects with an InvalidCsrError unless the text is one PEM CSR whose signature verifies. */
  verifyCsr(csrPem: string): Promise<void>;
  /** Signs a CSR with the subject forced to the given CN; a bad CSR rejects with an InvalidCsrError. */
  signCsr(csrPem: string, commonName: string): Promise<SignedClientCert>;
  revoke(serial: string): Promise<void>;
  /** Regenerates the CRL file nginx reads and returns its path. */
  writeCrl(): Promise<string>;
}
