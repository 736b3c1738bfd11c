// What a step on the host throws.

/** A step on the host failed. `message` is the program's own words (stderr, exit status). */
export class SystemError extends Error {
  constructor(
    message: string,
    readonly program?: string,
    readonly stderr?: string,
    /** machine-readable cause when there is one: exit code, errno name, `timeout` */
    readonly code?: string,
    /** what the program printed on stdout before failing (certbot explains failures there) */
    readonly stdout?: string,
  ) {
    super(message);
    this.name = 'SystemError';
  }

  /** What a 500 response puts after the spec's prefix (`Certificate issuance failed: ...`). */
  get details(): string {
    return this.message;
  }
}

/** A certificate signing request that is not one PEM CSR or whose signature does not verify: the caller's fault. */
export class InvalidCsrError extends SystemError {
  constructor(reason: string) {
    super(`Invalid certificate signing request: ${reason}`, 'openssl', undefined, 'csr');
    this.name = 'InvalidCsrError';
  }
}
