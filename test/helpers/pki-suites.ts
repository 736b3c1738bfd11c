import { suite, type Test } from 'uvu';

type Pki = 'fake' | 'openssl';

/**
 * A suite whose tests each get the set-up on one PKI: 'fake' (no openssl process, the unit files),
 * or 'openssl' (the real CA, named "(openssl CA)"; in test/integration/local, as it runs openssl)
 * for what only it shows: a PKCS#12's contents, a CRL's serials, a CSR's checked signature.
 */
export function pkiSuite(pki: Pki, name: string, setUp: (pki: Pki) => Promise<void>, tearDown: () => Promise<void>): Test {
  const made = suite(pki === 'openssl' ? `${name} (openssl CA)` : name);
  made.before.each(() => setUp(pki));
  made.after.each(tearDown);
  return made;
}
