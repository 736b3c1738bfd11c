import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh P-256 key and a CSR for it, made by the openssl CLI with whatever subject is asked. */
export function makeCsr(subject = '/CN=whatever'): { csr: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), 'relay-csr-'));
  try {
    execFileSync('openssl', ['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-subj', subject,
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'req.csr')], { stdio: 'ignore' });
    return { csr: readFileSync(join(dir, 'req.csr'), 'utf8'), key: readFileSync(join(dir, 'key.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The same CSR with one byte of its signature changed: well formed, but it does not verify. */
export function tamperCsr(csr: string): string {
  const der = Buffer.from(csr.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  const at = der.length - 3;
  der.writeUInt8(der.readUInt8(at) ^ 0x01, at);
  const body = der.toString('base64').match(/.{1,64}/g)!.join('\n');
  return `-----BEGIN CERTIFICATE REQUEST-----\n${body}\n-----END CERTIFICATE REQUEST-----\n`;
}

/** Subject, issuer and serial of a PEM certificate, through openssl. */
export function describeCert(pem: string): string {
  return execFileSync('openssl', ['x509', '-noout', '-subject', '-issuer', '-serial'], { input: pem }).toString();
}
