// Self-signed and locally signed server certificates (the IP panel; sandbox "ACME").
import { randomBytes, X509Certificate } from 'node:crypto';
import { chmod, mkdir, readFile, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { run } from '../common/exec.ts';
import type { CertPaths } from '../types.ts';

export interface ServerCertRequest {
  openssl: string;
  timeoutMs: number;
  paths: CertPaths;
  commonName: string;
  /** e.g. ['DNS:a.example.com'] or ['IP:203.0.113.7'] */
  subjectAltNames: string[];
  days: number;
  /** sign with this CA instead of self-signing */
  issuer?: CertPaths;
  isCa?: boolean;
}

export async function createServerCert(req: ServerCertRequest): Promise<void> {
  await mkdir(dirname(req.paths.fullchain), { recursive: true });
  await mkdir(dirname(req.paths.privkey), { recursive: true, mode: 0o700 });
  const ext = req.isCa
    ? ['-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign']
    : ['-addext', 'basicConstraints=critical,CA:FALSE', '-addext', 'extendedKeyUsage=serverAuth'];
  const san = req.subjectAltNames.length ? ['-addext', `subjectAltName=${req.subjectAltNames.join(',')}`] : [];
  const issuer = req.issuer ? ['-CA', req.issuer.fullchain, '-CAkey', req.issuer.privkey] : [];
  // written beside the final names and renamed, key first: a certificate in place always has its
  // key beside it, whenever the process dies
  const suffix = `.${randomBytes(6).toString('hex')}.new`;
  const key = `${req.paths.privkey}${suffix}`;
  const cert = `${req.paths.fullchain}${suffix}`;
  try {
    await run(req.openssl, ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
      '-days', String(req.days), '-subj', `/CN=${req.commonName}`, ...ext, ...san, ...issuer,
      '-keyout', key, '-out', cert], { timeoutMs: req.timeoutMs });
    await chmod(key, 0o600);
    await rename(key, req.paths.privkey);
    await rename(cert, req.paths.fullchain);
  } finally {
    await rm(key, { force: true });
    await rm(cert, { force: true });
  }
}

/** Expiry of the first certificate in a PEM file, or null when there is none. */
export async function certificateExpiry(path: string): Promise<Date | null> {
  try {
    const pem = await readFile(path, 'utf8');
    return new Date(new X509Certificate(pem).validTo);
  } catch {
    return null;
  }
}

/** The DNS names of the first certificate in a PEM file (its subject alternative names), or null when there is none. */
export async function certificateNames(path: string): Promise<string[] | null> {
  try {
    const pem = await readFile(path, 'utf8');
    return (new X509Certificate(pem).subjectAltName ?? '').split(', ').filter((n) => n.startsWith('DNS:')).map((n) => n.slice('DNS:'.length));
  } catch {
    return null;
  }
}

/** Makes server certificates and reads their expiry and names: openssl, or the testing kit's fake. */
export interface ServerCertMaker {
  create(req: ServerCertRequest): Promise<void>;
  /** Expiry of the certificate at `path`, or null when there is none. */
  expiry(path: string): Promise<Date | null>;
  /** The DNS names the certificate at `path` covers, or null when there is none. */
  names(path: string): Promise<string[] | null>;
}

export const opensslServerCerts: ServerCertMaker = { create: createServerCert, expiry: certificateExpiry, names: certificateNames };
