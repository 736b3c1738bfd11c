// The create steps' certificate by the mode (which name the wildcard covers: lib/host-state/wildcard-lineage.ts).
import type { CertsAdapter } from '../../system/types.ts';
import { wildcardLineageFor, type CertModeConfig } from '../../host-state/wildcard-lineage.ts';

export { certOfSpec, wildcardLineageFor, type CertModeConfig } from '../../host-state/wildcard-lineage.ts';

/**
 * The create steps' certificate: none to issue when the wildcard covers the name (its lineage must
 * be there), else the name's own through HTTP-01, issued only when missing.
 */
export async function ensureCertificate(certs: Pick<CertsAdapter, 'has' | 'issue'>, config: CertModeConfig, fqdn: string, email: string): Promise<void> {
  const lineage = wildcardLineageFor(fqdn, config);
  if (lineage === null) {
    await certs.issue(fqdn, email);
    return;
  }
  if (!(await certs.has(lineage))) throw new Error(`the wildcard certificate ${lineage} that covers ${fqdn} is missing or expired: renew it on the certificates page`);
}
