import { randomBytes } from 'node:crypto';

/** A one-time PKCS#12 password: shown once in the response, never stored or logged. */
export const newP12Password = (): string => randomBytes(18).toString('base64url');
