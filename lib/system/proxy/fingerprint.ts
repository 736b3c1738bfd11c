// This release's vhost templates in one hash: what a sample of every kind renders to under the
// box's layout and ports. A vhost stamped under another fingerprint was made by another release
// (or another layout) and is read and compared at the next start; one stamped under this one and
// made from the same spec holds this release's text without being rendered again.
import { createHash } from 'node:crypto';
import type { VhostSpec } from '../types.ts';
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
  { kind: 'site', fqdn: 'site.fingerprint.invalid', root: '/fingerprint/site', spaMode: false, protected: false },
  { kind: 'site', fqdn: 'spa.fingerprint.invalid', root: '/fingerprint/spa', spaMode: true, protected: true },
  { kind: 'site', fqdn: 'closed.fingerprint.invalid', root: '/fingerprint/closed', spaMode: false, protected: true, closed: true },
];

/**
 * `pkiDir`: where the client CA and CRL the panel vhosts name lie (made at the first panel
 * vhost's render, so not asked of the PKI here).
 */
export function vhostFingerprint(o: Pick<RendererOptions, 'listenAddress' | 'acmeWebroot' | 'helpDir' | 'selfSignedDir' | 'routesDir' | 'ports' | 'certs' | 'publicLocations' | 'trafficPort'>, pkiDir: string): string {
  const ctx = templateContext(o, { caPath: `${pkiDir}/ca.pem`, crlPath: `${pkiDir}/crl.pem` });
  const hash = createHash('sha256').update(pkiDir);
  for (const spec of SAMPLES) hash.update(stampVhost(renderVhost(spec, ctx)));
  return hash.digest('hex').slice(0, 32);
}
