import { suite, type Test } from 'uvu';

type Pki = 'fake' | 'openssl';

/**
 * Two suites on one set-up: `s` on the fake PKI (no openssl process), `o` on the openssl CA, for
 * what only it shows (a PKCS#12's contents, a CRL's serials, a CSR's checked signature).
 */
export function pkiSuites(name: string, setUp: (pki: Pki) => Promise<void>, tearDown: () => Promise<void>): { s: Test; o: Test } {
  const make = (pki: Pki, title: string) => {
    const made = suite(title);
    made.before.each(() => setUp(pki));
    made.after.each(tearDown);
    return made;
  };
  return { s: make('fake', name), o: make('openssl', `${name} (openssl CA)`) };
}
