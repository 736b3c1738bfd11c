// Sandbox certificates: a local CA signs a 90-day certificate per name, as ACME would issue it.
import { chmod, copyFile, mkdir, readdir, readFile, rm, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../common/atomic-write.ts';
import { archiveReader } from './archive.ts';
import { daysLeft, staysValid } from './cert-validity.ts';
import type { SystemConfig } from '../config.ts';
import { assertFqdn } from '../common/names.ts';
import type { ServerCertMaker } from '../pki/self-signed.ts';
import { SystemError, type CertInfo, type CertPaths, type CertsAdapter } from '../types.ts';
import type { SandboxControls } from '../sandbox/controls.ts';
import { sandboxPaths } from '../sandbox/paths.ts';

// X.509 caps a common name at 64 characters while a name may be 253; the SAN carries the name, as
// public CAs do for long names.
const MAX_COMMON_NAME = 64;
/** beside a wildcard lineage's files: its listing names `*.<domain>` too */
const WILDCARD_MARK = 'wildcard';

export function createSandboxCerts(config: SystemConfig, dataDir: string, controls: SandboxControls, now: () => number, maker: ServerCertMaker): CertsAdapter {
  const p = sandboxPaths(dataDir);
  const ca: CertPaths = { fullchain: join(p.localCa, 'ca.pem'), privkey: join(p.localCa, 'ca.key') };
  const tool = { openssl: config.binaries.openssl, timeoutMs: config.timeouts.defaultMs };

  const paths = (fqdn: string): CertPaths => {
    assertFqdn(fqdn);
    return { fullchain: join(p.certsLive, fqdn, 'fullchain.pem'), privkey: join(p.certsLive, fqdn, 'privkey.pem') };
  };
  const has = async (fqdn: string): Promise<boolean> => staysValid(config, await maker.expiry(paths(fqdn).fullchain), now());
  // made once, however many issuances start together: two openssl runs writing the same two files
  // at once left one's key beside the other's certificate, and every later issuance failed
  let caReady: Promise<void> | null = null;
  const ensureCa = () => (caReady ??= (async () => {
    if ((await maker.expiry(ca.fullchain)) === null) {
      await maker.create({ ...tool, paths: ca, commonName: 'relay-sandbox-acme-ca', subjectAltNames: [], days: 3650, isCa: true });
    }
  })().catch((error: unknown) => {
    caReady = null;
    throw error;
  }));
  /** The signed certificate kept as certbot keeps each version, dated by the sandbox's clock. */
  const archive = async (lineage: string) => {
    const dir = join(p.certsArchive, lineage);
    await mkdir(dir, { recursive: true });
    const last = Math.max(0, ...(await readdir(dir)).map((f) => Number(/^cert(\d+)\.pem$/.exec(f)?.[1] ?? 0)));
    const file = join(dir, `cert${last + 1}.pem`);
    await copyFile(paths(lineage).fullchain, file);
    // a certificate, public as certbot's own archive copies are (0644), whatever the umask
    await chmod(file, 0o644);
    await utimes(file, now() / 1000, now() / 1000);
    // the directory too: the archive's reader skips a lineage whose directory is older than its window
    await utimes(dir, now() / 1000, now() / 1000);
  };
  const sign = async (fqdn: string, names: readonly string[] = [fqdn]) => {
    await ensureCa();
    await maker.create({ ...tool, paths: paths(fqdn), commonName: fqdn.length <= MAX_COMMON_NAME ? fqdn : 'relay-sandbox-certificate', subjectAltNames: names.map((n) => `DNS:${n}`), days: 90, issuer: ca });
    await archive(fqdn);
  };

  const readArchive = archiveReader((path) => maker.names(path));

  let changes = 0;
  return {
    paths,
    has,
    names: (lineage) => maker.names(paths(lineage).fullchain),
    issuedSince: (since) => readArchive(p.certsArchive, since),
    changes: () => changes,
    async issue(fqdn) {
      assertFqdn(fqdn);
      if (await has(fqdn)) return { issued: false, paths: paths(fqdn) };
      await sign(fqdn);
      changes++;
      controls.record('certs.issue', { fqdn });
      return { issued: true, paths: paths(fqdn) };
    },
    async issueWildcard(domain, _email, dns) {
      assertFqdn(domain);
      const wildcardThere = await readFile(join(p.certsLive, domain, WILDCARD_MARK)).then(() => true, () => false);
      if (wildcardThere && (await has(domain))) return { issued: false, paths: paths(domain) };
      // certbot would read the plugin's credentials here: a missing file fails as it would
      await readFile(dns.credentialsPath).catch(() => {
        throw new SystemError(`Error: the credentials file ${dns.credentialsPath} was not found`, 'certbot');
      });
      await ensureCa();
      await rm(paths(domain).fullchain, { force: true });
      await maker.create({ ...tool, paths: paths(domain), commonName: domain.length <= MAX_COMMON_NAME ? domain : 'relay-sandbox-certificate', subjectAltNames: [`DNS:${domain}`, `DNS:*.${domain}`], days: 90, issuer: ca });
      await writeFileAtomic(join(p.certsLive, domain, WILDCARD_MARK), `*.${domain}\n`);
      await archive(domain);
      changes++;
      controls.record('certs.issueWildcard', { domain, authenticator: dns.authenticator });
      return { issued: true, paths: paths(domain) };
    },
    async remove(name) {
      assertFqdn(name);
      await rm(join(p.certsLive, name), { recursive: true, force: true });
      await rm(join(p.certsArchive, name), { recursive: true, force: true });
      changes++;
      controls.record('certs.remove', { name });
    },
    async list() {
      let names: string[] = [];
      try {
        names = (await readdir(p.certsLive)).sort();
      } catch {
        return [];
      }
      const out: CertInfo[] = [];
      for (const domain of names) {
        const expiry = await maker.expiry(paths(domain).fullchain);
        if (!expiry) continue;
        const wildcard = await readFile(join(p.certsLive, domain, WILDCARD_MARK), 'utf8').then(() => [`*.${domain}`], () => []);
        out.push({ domain, domains: [domain, ...wildcard], expiresAt: expiry.toISOString(), daysLeft: daysLeft(expiry.getTime(), now()), paths: paths(domain) });
      }
      return out;
    },
    async renew(fqdn) {
      const names = await maker.names(paths(fqdn).fullchain);
      if ((await maker.expiry(paths(fqdn).fullchain)) === null || names === null) throw new SystemError(`No certificate for ${fqdn}`);
      await rm(paths(fqdn).fullchain, { force: true });
      // as certbot renews: the same names again (the wildcard's two)
      await sign(fqdn, names.length > 0 ? names : [fqdn]);
      changes++;
      controls.record('certs.renew', { fqdn });
      controls.record('proxy.reload', { by: 'certs.renew' });
    },
    async setupAutoRenew() {
      await writeFileAtomic(p.certsState, JSON.stringify({ active: true, since: new Date(now()).toISOString() }) + '\n');
      controls.record('certs.setupAutoRenew');
    },
    async autoRenewStatus() {
      try {
        const s = JSON.parse(await readFile(p.certsState, 'utf8')) as { active: boolean };
        // the panel's renewal timer runs twice a day
        return { active: s.active, nextRun: new Date(now() + 12 * 3600_000).toISOString(), lastRun: null };
      } catch {
        return { active: false, nextRun: null, lastRun: null };
      }
    },
  };
}
