// The certificates (certbot) adapter as the domain services see it; host.ts drives the real program, sandbox.ts plays it.

export interface CertPaths {
  fullchain: string;
  privkey: string;
}

export interface CertInfo {
  /** The lineage name certbot renews by. */
  domain: string;
  /** Every name the certificate covers. */
  domains: string[];
  expiresAt: string;
  daysLeft: number;
  paths: CertPaths;
}

export interface AutoRenewStatus {
  active: boolean;
  nextRun: string | null;
  lastRun: string | null;
}

export interface CertsAdapter {
  paths(fqdn: string): CertPaths;
  /** A valid (unexpired) certificate exists for the name. */
  has(fqdn: string): Promise<boolean>;
  /** Issues unless a valid certificate exists; `issued` says which. */
  issue(fqdn: string, email: string): Promise<{ issued: boolean; paths: CertPaths }>;
  list(): Promise<CertInfo[]>;
  renew(fqdn: string): Promise<void>;
  /** Grows with each certificate this adapter issues or renews: a listing taken before it is stale. */
  changes(): number;
  setupAutoRenew(): Promise<void>;
  autoRenewStatus(): Promise<AutoRenewStatus>;
}
