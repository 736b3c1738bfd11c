import { join } from 'node:path';
import type { Clock } from '../clock.ts';
import type { ConfigStore } from '../config.ts';
import type { Logger } from '../log.ts';
import type { Store } from '../state/store.ts';
import type { System } from '../system/types.ts';
import { AdminCert } from './admin-cert.ts';
import { AgentCerts } from './agents.ts';
import { BundleFiles } from './bundle-files.ts';
import { CapabilitySet } from './capability-set.ts';
import { Enrollment } from './enrollment.ts';
import { LabelClaims } from './label-claims.ts';
import { LetsEncrypt } from './letsencrypt.ts';
import { Revoker } from './revocation.ts';

export interface CertsDeps {
  config: ConfigStore;
  store: Store;
  system: System;
  clock: Clock;
  log: Logger;
  /** Capabilities declared by ticket scopes (`services.ticketing.capabilityNames`). */
  scopeCapabilities: () => ReadonlySet<string>;
}

/** Certificates: agents and enrollment (one label claim), the admin's certificate (one revoker for all), Let's Encrypt. */
export function createCertServices(deps: CertsDeps) {
  const capabilities = new CapabilitySet(deps.scopeCapabilities);
  const claims = new LabelClaims(() => deps.store.agents.value);
  const bundles = new BundleFiles(join(deps.store.dataDir, 'certs'));
  const revoker = new Revoker(deps);
  const agentCerts = new AgentCerts({ ...deps, capabilities, claims, bundles, revoker });
  const enrollment = new Enrollment({ ...deps, tokens: deps.store.enrollmentTokens, capabilities, claims, agents: agentCerts });
  const adminCert = new AdminCert({ ...deps, state: deps.store.adminCert, bundles, revoker });
  const letsEncrypt = new LetsEncrypt(deps);
  return { agentCerts, enrollment, adminCert, letsEncrypt };
}
