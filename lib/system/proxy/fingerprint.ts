// This release's vhost templates in one hash: what a sample of every kind renders to under the
// box's layout and ports. A vhost stamped under another fingerprint was made by another release
// (or another layout) and is read and compared at the next start; one stamped under this one and
// made from the same spec holds this release's text without being rendered again.
import { createHash } from 'node:crypto';
import type { CertPaths, VhostSpec } from '../types.ts';
import { templateContext, type RendererOptions } from './renderer.ts';
import { renderVhost } from './templates.ts';
import { stampVhost } from './vhost-stamp.ts';

const SAMPLES: VhostSpec[] = [
  { kind: 'ip-panel' },
  { kind: 'default' },
  { kind: 'panel', fqdn: 'panel.fingerprint.invalid' },
  { kind: 'auth-portal', fqdn: 'auth.fingerprint.invalid' },
  { kind: 'tunnel-server', fqdn: 'tunnel.fingerprint.invalid' },
  { kind: 'app', fqdn: 'app.fingerprint.invalid', port: 4321 },
  { kind: 'app', fqdn: 'open.fingerprint.invalid', port: 4322, public: true },
  { kind: 'app', fqdn: 'shared.fingerprint.invalid', port: 4323, cert: 'fingerprint.invalid', shared: true },
  { kind: 'tunnels', fqdn: 'fingerprint.invalid' },
  { kind: 'tunnels', fqdn: 'sni.fingerprint.invalid', sni: true },
  { kind: 'site', fqdn: 'site.fingerprint.invalid', root: '/fingerprint/site', spaMode: false, protected: false },
  { kind: 'site', fqdn: 'spa.fingerprint.invalid', root: '/fingerprint/spa', spaMode: true, protected: true },
  { kind: 'site', fqdn: 'closed.fingerprint.invalid', root: '/fingerprint/closed', spaMode: false, protected: true, closed: true },
];

/** every name a sample's vhost may ask the certificate paths of */
const SAMPLE_NAMES = [...new Set(SAMPLES.flatMap((s) => ('fqdn' in s ? [s.fqdn, ...('cert' in s && s.cert ? [s.cert] : [])] : [])))];

export type FingerprintOptions = Pick<RendererOptions, 'listenAddress' | 'acmeWebroot' | 'helpDir' | 'selfSignedDir' | 'routesDir' | 'sniDir' | 'ports' | 'certs' | 'publicLocations' | 'trafficPort'>;

// Rendering the samples costs 1-2 ms; a process that builds many systems from the same inputs
// (the test kits) renders them once. Bounded, as a long-lived process could see many inputs.
const MEMO_LIMIT = 64;
const memo = new Map<string, string>();

/**
 * A fingerprint and what it is made from besides the code: the stamps (vhost-stamps.ts) keep the
 * fingerprint with the bundle's identity and these inputs, and a start of the same code with the
 * same inputs takes it from there instead of rendering the samples (about 6 ms of a cold start,
 * most of it compiling the templates).
 */
export interface Fingerprinter {
  /** the layout, ports and certificate paths the samples render with, as one string */
  inputs(): string;
  render(): string;
}

/**
 * `pkiDir`: where the client CA and CRL the panel vhosts name lie (made at the first panel
 * vhost's render, so not asked of the PKI here).
 */
export function vhostFingerprinter(o: FingerprintOptions, pkiDir: string): Fingerprinter {
  let known: { key: string; certPaths: Map<string, CertPaths> } | undefined;
  const inputs = () => {
    if (known) return known;
    const certPaths = new Map<string, CertPaths>(SAMPLE_NAMES.map((n) => [n, o.certs.paths(n)]));
    const key = JSON.stringify([pkiDir, o.listenAddress, o.acmeWebroot, o.helpDir, o.selfSignedDir, o.routesDir, o.sniDir, o.ports, o.publicLocations ?? null, o.trafficPort ?? null, [...certPaths]]);
    return (known = { key, certPaths });
  };
  return {
    inputs: () => inputs().key,
    render() {
      const { key, certPaths } = inputs();
      const kept = memo.get(key);
      if (kept !== undefined) return kept;
      const fingerprint = renderedFingerprint({ ...o, certs: { paths: (fqdn) => certPaths.get(fqdn) ?? unknownSampleName(fqdn) } }, pkiDir);
      if (memo.size >= MEMO_LIMIT) memo.clear();
      memo.set(key, fingerprint);
      return fingerprint;
    },
  };
}

/**
 * The fingerprint of a layout that lies under `root` (a sandbox's data directory): the samples
 * render with `root` as a placeholder, so systems that differ only in where they lie share one
 * render, and `root` itself goes into the hash, so a moved directory still changes it.
 */
export function relocatableVhostFingerprinter(o: FingerprintOptions, pkiDir: string, root: string): Fingerprinter {
  const prefix = root.endsWith('/') ? root : `${root}/`;
  const placed = (path: string): string => (path.startsWith(prefix) ? `${ROOT_PLACEHOLDER}/${path.slice(prefix.length)}` : path);
  const relocated: FingerprintOptions = {
    ...o,
    acmeWebroot: placed(o.acmeWebroot),
    helpDir: placed(o.helpDir),
    selfSignedDir: placed(o.selfSignedDir),
    routesDir: placed(o.routesDir),
    sniDir: placed(o.sniDir),
    certs: {
      paths(fqdn) {
        const p = o.certs.paths(fqdn);
        return { fullchain: placed(p.fullchain), privkey: placed(p.privkey) };
      },
    },
  };
  const inner = vhostFingerprinter(relocated, placed(pkiDir));
  return {
    inputs: () => JSON.stringify([root, inner.inputs()]),
    render: () => createHash('sha256').update(root).update('\0').update(inner.render()).digest('hex').slice(0, 32),
  };
}

const ROOT_PLACEHOLDER = '/relay-fingerprint-root';

function renderedFingerprint(o: FingerprintOptions, pkiDir: string): string {
  const ctx = templateContext(o, { caPath: `${pkiDir}/ca.pem`, crlPath: `${pkiDir}/crl.pem` });
  const hash = createHash('sha256').update(pkiDir);
  for (const spec of SAMPLES) hash.update(stampVhost(renderVhost(spec, ctx)));
  return hash.digest('hex').slice(0, 32);
}

function unknownSampleName(fqdn: string): never {
  throw new Error(`vhost fingerprint: a sample asked the certificate of ${fqdn}, which SAMPLE_NAMES leaves out`);
}
