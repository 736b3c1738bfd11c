// The client-certificate authority, with the openssl CLI: CA, client certificates with tracked
// serials (openssl's index.txt), PKCS#12, CSR signing with a forced subject, revocation and CRL.
// The same code serves host (/etc/relay-panel/pki) and sandbox (dataDir/pki).
import { X509Certificate } from 'node:crypto';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../common/atomic-write.ts';
import type { SystemConfig } from '../config.ts';
import { pathExists } from '../common/fs.ts';
import { run, runBinary } from '../common/exec.ts';
import { assertAbsolutePath, assertClientCommonName } from '../common/names.ts';
import { serialQueue } from '../../keyed-lock.ts';
import { InvalidCsrError, SystemError, type IssuedClientCert, type PkiAdapter, type SignedClientCert } from '../types.ts';

export interface OpensslPkiOptions {
  openssl: string;
  dir: string;
  caCommonName: string;
  clientCertDays: number;
  timeoutMs: number;
}

export function pkiPaths(dir: string) {
  return {
    caCert: join(dir, 'ca.pem'),
    caKey: join(dir, 'ca.key'),
    crl: join(dir, 'crl.pem'),
    cnf: join(dir, 'ca.cnf'),
    index: join(dir, 'index.txt'),
    serial: join(dir, 'serial'),
    crlNumber: join(dir, 'crlnumber'),
    newCerts: join(dir, 'newcerts'),
  };
}

export function renderCaConfig(dir: string): string {
  return `# managed by relay-panel: openssl "ca" settings of the client-certificate authority
[ ca ]
default_ca = relay_ca
[ relay_ca ]
dir              = ${dir}
database         = $dir/index.txt
new_certs_dir    = $dir/newcerts
certificate      = $dir/ca.pem
private_key      = $dir/ca.key
serial           = $dir/serial
crlnumber        = $dir/crlnumber
default_md       = sha256
default_days     = 825
default_crl_days = 3650
policy           = policy_cn
unique_subject   = no
copy_extensions  = none
[ policy_cn ]
commonName       = supplied
[ client_ext ]
basicConstraints       = critical,CA:FALSE
keyUsage               = critical,digitalSignature,keyEncipherment
extendedKeyUsage       = clientAuth
subjectKeyIdentifier   = hash
authorityKeyIdentifier = keyid
[ crl_ext ]
authorityKeyIdentifier = keyid
`;
}

/** Serial as nginx's $ssl_client_serial shows it (uppercase hex), and notAfter in ISO 8601 UTC. */
export function signedCert(certPem: string): SignedClientCert {
  const x509 = new X509Certificate(certPem);
  return { serial: x509.serialNumber.toUpperCase(), certPem, expiresAt: new Date(x509.validTo).toISOString() };
}

export interface IndexEntry {
  status: 'V' | 'R' | 'E';
  serial: string;
  subject: string;
}

/** openssl's index.txt: status, expiry, revocation, serial, file, subject (tab separated). */
export function parseCaIndex(text: string): IndexEntry[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((line) => {
      const f = line.split('\t');
      return { status: f[0] as IndexEntry['status'], serial: (f[3] ?? '').toUpperCase(), subject: f[5] ?? '' };
    });
}

function isCsrPem(text: unknown): text is string {
  return typeof text === 'string' && /^-----BEGIN (NEW )?CERTIFICATE REQUEST-----[A-Za-z0-9+/=\s]+-----END (NEW )?CERTIFICATE REQUEST-----$/.test(text.trim());
}

function sameSerial(a: string, b: string): boolean {
  const norm = (s: string) => s.toUpperCase().replace(/^0+(?=.)/, '');
  return norm(a) === norm(b);
}

/** The client-certificate authority of a host or sandbox system, kept in `dir`. */
export function systemPki(config: SystemConfig, dir: string): OpensslPki {
  return new OpensslPki({
    openssl: config.binaries.openssl,
    dir,
    caCommonName: config.pki.caCommonName,
    clientCertDays: config.pki.clientCertDays,
    timeoutMs: config.timeouts.defaultMs,
  });
}

export class OpensslPki implements PkiAdapter {
  private readonly serial = serialQueue();
  private readonly paths;

  constructor(private readonly opts: OpensslPkiOptions) {
    assertAbsolutePath(opts.dir);
    this.paths = pkiPaths(opts.dir);
  }

  ensureCa(): Promise<{ caPath: string; crlPath: string }> {
    return this.serial(() => this.ensureCaUnlocked());
  }

  issueClientCert(commonName: string, days = this.opts.clientCertDays): Promise<IssuedClientCert> {
    assertClientCommonName(commonName);
    return this.serial(async () => {
      await this.ensureCaUnlocked();
      return this.withTemp(async (tmp) => {
        const key = join(tmp, 'key.pem');
        const csr = join(tmp, 'req.csr');
        await this.openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
          '-subj', `/CN=${commonName}`, '-keyout', key, '-out', csr]);
        const certPem = await this.sign(tmp, csr, commonName, days);
        return { ...signedCert(certPem), keyPem: await readFile(key, 'utf8') };
      });
    });
  }

  toPkcs12(cert: IssuedClientCert, password: string): Promise<Buffer> {
    return this.withTemp(async (tmp) => {
      const certFile = join(tmp, 'cert.pem');
      const keyFile = join(tmp, 'key.pem');
      await writeFile(certFile, cert.certPem, { mode: 0o600 });
      await writeFile(keyFile, cert.keyPem, { mode: 0o600 });
      const name = new X509Certificate(cert.certPem).subject.replace(/^CN=/, '');
      // 3DES/SHA1 instead of OpenSSL 3's AES default: macOS and older Windows cannot import the latter.
      // The password goes through the environment, never argv (visible in ps).
      const { stdout } = await runBinary(this.opts.openssl, ['pkcs12', '-export', '-in', certFile, '-inkey', keyFile,
        '-certfile', this.paths.caCert, '-name', name, '-passout', 'env:RELAY_P12_PASSWORD',
        '-certpbe', 'PBE-SHA1-3DES', '-keypbe', 'PBE-SHA1-3DES', '-macalg', 'sha1'],
      { timeoutMs: this.opts.timeoutMs, env: { ...process.env, RELAY_P12_PASSWORD: password } });
      return stdout;
    });
  }

  caCertificate(): Promise<string> {
    return this.ensureCa().then(({ caPath }) => readFile(caPath, 'utf8'));
  }

  verifyCsr(csrPem: string): Promise<void> {
    if (!isCsrPem(csrPem)) return Promise.reject(new InvalidCsrError('not a PEM certificate request'));
    return this.withTemp(async (tmp) => this.verifyCsrFile(await this.writeCsr(tmp, csrPem)));
  }

  signCsr(csrPem: string, commonName: string): Promise<SignedClientCert> {
    assertClientCommonName(commonName);
    if (!isCsrPem(csrPem)) return Promise.reject(new InvalidCsrError('not a PEM certificate request'));
    return this.serial(async () => {
      await this.ensureCaUnlocked();
      return this.withTemp(async (tmp) => {
        const csr = await this.writeCsr(tmp, csrPem);
        // proves the requester holds the key; the subject it asked for is discarded below
        await this.verifyCsrFile(csr);
        return signedCert(await this.sign(tmp, csr, commonName, this.opts.clientCertDays));
      });
    });
  }

  private async writeCsr(tmp: string, csrPem: string): Promise<string> {
    const csr = join(tmp, 'req.csr');
    await writeFile(csr, csrPem, { mode: 0o600 });
    return csr;
  }

  private async verifyCsrFile(csr: string): Promise<void> {
    // openssl 3.0 exits 0 on a bad self-signature and only says so: read the verdict. Exit 1 is a
    // request it cannot parse; a missing binary or a timeout still rejects as a SystemError.
    const { stdout, stderr, exitCode } = await run(this.opts.openssl, ['req', '-in', csr, '-noout', '-verify'], { timeoutMs: this.opts.timeoutMs, okExitCodes: [1] });
    if (exitCode !== 0) throw new InvalidCsrError('openssl cannot read it');
    if (!/verify OK/.test(`${stdout}${stderr}`)) throw new InvalidCsrError('the signature does not verify');
  }

  revoke(serial: string): Promise<void> {
    if (!/^[0-9A-Fa-f]{1,64}$/.test(serial)) return Promise.reject(new SystemError(`Invalid serial '${serial}'`));
    return this.serial(async () => {
      await this.ensureCaUnlocked();
      const entries = parseCaIndex(await readFile(this.paths.index, 'utf8'));
      const entry = entries.find((e) => sameSerial(e.serial, serial));
      if (!entry) throw new SystemError(`No certificate with serial ${serial}`);
      if (entry.status !== 'R') {
        await this.openssl(['ca', '-config', this.paths.cnf, '-revoke', join(this.paths.newCerts, `${entry.serial}.pem`),
          '-crl_reason', 'keyCompromise']);
      }
      await this.writeCrlUnlocked();
    });
  }

  writeCrl(): Promise<string> {
    return this.serial(async () => {
      await this.ensureCaUnlocked();
      return this.writeCrlUnlocked();
    });
  }

  private async ensureCaUnlocked(): Promise<{ caPath: string; crlPath: string }> {
    const p = this.paths;
    if (!(await pathExists(p.caCert)) || !(await pathExists(p.caKey))) {
      await mkdir(p.newCerts, { recursive: true, mode: 0o700 });
      await chmod(this.opts.dir, 0o700);
      await writeFileAtomic(p.cnf, renderCaConfig(this.opts.dir));
      await writeFileAtomic(p.index, '');
      await writeFileAtomic(p.serial, '1000\n');
      await writeFileAtomic(p.crlNumber, '1000\n');
      await this.openssl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '3650',
        '-subj', `/CN=${this.opts.caCommonName}`, '-addext', 'basicConstraints=critical,CA:TRUE',
        '-addext', 'keyUsage=critical,keyCertSign,cRLSign', '-keyout', p.caKey, '-out', p.caCert]);
      await chmod(p.caKey, 0o600);
    }
    if (!(await pathExists(p.cnf))) await writeFileAtomic(p.cnf, renderCaConfig(this.opts.dir));
    if (!(await pathExists(p.crl))) await this.writeCrlUnlocked();
    return { caPath: p.caCert, crlPath: p.crl };
  }

  private async writeCrlUnlocked(): Promise<string> {
    const { stdout } = await this.openssl(['ca', '-config', this.paths.cnf, '-gencrl', '-crlexts', 'crl_ext']);
    await writeFileAtomic(this.paths.crl, stdout, 0o644);
    return this.paths.crl;
  }

  private async sign(tmp: string, csr: string, commonName: string, days: number): Promise<string> {
    const out = join(tmp, 'cert.pem');
    await this.openssl(['ca', '-batch', '-config', this.paths.cnf, '-extensions', 'client_ext', '-days', String(days),
      '-notext', '-subj', `/CN=${commonName}`, '-in', csr, '-out', out]);
    return readFile(out, 'utf8');
  }

  private openssl(args: string[]) {
    return run(this.opts.openssl, args, { timeoutMs: this.opts.timeoutMs });
  }

  private async withTemp<T>(fn: (dir: string) => Promise<T>): Promise<T> {
    await mkdir(this.opts.dir, { recursive: true, mode: 0o700 });
    const tmp = await mkdtemp(join(this.opts.dir, '.tmp-'));
    try {
      return await fn(tmp);
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
  }
}

