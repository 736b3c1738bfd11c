// The certificates (certbot) adapter as the domain services see it; host.ts drives the real program, sandbox.ts plays it.
import type { IssuedVersion } from './archive.ts';

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

/** How certbot answers a DNS-01 challenge: its DNS plugin, the plugin's credentials and wait. */
export interface DnsChallenge {
  /** certbot's `--authenticator` (dns-rfc2136, dns-cloudflare, ...) */
  authenticator: string;
  credentialsPath: string;
  /** the option naming the file (`--dns-rfc2136-credentials`); null when an environment variable does */
  credentialsOption: string | null;
  credentialsEnv?: string;
  propagationOption: string | null;
  propagationSeconds: number | null;
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
  /** The names the lineage's current certificate covers (`*.<domain>` for the wildcard); null when there is none. */
  names(lineage: string): Promise<string[] | null>;
  /**
   * Every certificate version stored since `since` (epoch ms), whoever ordered it: the panel, or
   * the renewal timer running outside it (the limits count both).
   */
  issuedSince(since: number): Promise<IssuedVersion[]>;
  /** Issues unless a valid certificate exists; `issued` says which. */
  issue(fqdn: string, email: string): Promise<{ issued: boolean; paths: CertPaths }>;
  /**
   * One certificate for `domain` and `*.<domain>` through DNS-01, in the lineage named `domain`;
   * issues unless a valid one is there. certbot keeps the plugin and its credentials file in the
   * lineage's renewal configuration, so the timer renews it the same way.
   */
  issueWildcard(domain: string, email: string, dns: DnsChallenge): Promise<{ issued: boolean; paths: CertPaths }>;
  /** Deletes a lineage (`certbot delete`): a wildcard certificate nothing serves any more. */
  remove(name: string): Promise<void>;
  list(): Promise<CertInfo[]>;
  renew(fqdn: string): Promise<void>;
  /** Grows with each certificate this adapter issues or renews: a listing taken before it is stale. */
  changes(): number;
  setupAutoRenew(): Promise<void>;
  /**
   * A start's check of the deploy hook setupAutoRenew wrote: rewritten when this release (or this
   * launcher) would write another; never made where there is none, never touched by a panel run
   * from its sources (it names no launcher). True when it was rewritten.
   */
  keepDeployHook?(): Promise<boolean>;
  autoRenewStatus(): Promise<AutoRenewStatus>;
}
