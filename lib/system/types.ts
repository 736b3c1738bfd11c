// The host, as the domain services see it. `host/*` drives the real programs; `sandbox/*` plays
// them inside dataDir. Domain code depends only on these interfaces.

/** A step on the host failed. `message` is the program's own words (stderr, exit status). */
export class SystemError extends Error {
  constructor(
    message: string,
    readonly program?: string,
    readonly stderr?: string,
    /** machine-readable cause when there is one: exit code, errno name, `timeout` */
    readonly code?: string,
    /** what the program printed on stdout before failing (certbot explains failures there) */
    readonly stdout?: string,
  ) {
    super(message);
    this.name = 'SystemError';
  }

  /** What a 500 response puts after the spec's prefix (`Certificate issuance failed: ...`). */
  get details(): string {
    return this.message;
  }
}

/** A certificate signing request that is not one PEM CSR or whose signature does not verify: the caller's fault. */
export class InvalidCsrError extends SystemError {
  constructor(reason: string) {
    super(`Invalid certificate signing request: ${reason}`, 'openssl', undefined, 'csr');
    this.name = 'InvalidCsrError';
  }
}

// ---------- proxy (nginx) ----------

/**
 * Panel paths nginx proxies whatever the client certificate says: the routes marked public, given
 * by the composition root (lib/main.ts). `exact` become `location =`, `prefix` `location ^~`.
 */
export interface PublicLocations {
  exact: readonly string[];
  prefix: readonly string[];
}

/** What a virtual host is for; the adapter renders it with its own ports and paths. */
export type VhostSpec =
  | { kind: 'ip-panel' }
  // the catch-all of ports 80 and 443: names without a vhost get a plain 404
  | { kind: 'default' }
  | { kind: 'panel'; fqdn: string }
  | { kind: 'auth-portal'; fqdn: string }
  | { kind: 'tunnel-server'; fqdn: string }
  | { kind: 'app'; fqdn: string; port: number }
  | { kind: 'site'; fqdn: string; root: string; spaMode: boolean; protected: boolean; closed?: true };
// A protected vhost asks the portal on loopback and sends a visitor to the login page the portal's
// answer names (its Location header), so no spec names the portal. `closed`: protected, but out of
// the portal's reach (lib/sites/portal-reach.ts): every request answers 403.

export type VhostChange =
  | { op: 'put'; spec: VhostSpec; enabled: boolean }
  | { op: 'enable' | 'disable' | 'remove'; name: string };

export interface VhostState {
  name: string;
  written: boolean;
  enabled: boolean;
  /** present when the file was edited after relay-panel wrote it (lib/system/nginx/vhost-stamp.ts) */
  edited?: true;
}

export interface ProxyAdapter {
  /** The file name a spec is stored under (stable, derived from kind and fqdn). */
  vhostName(spec: VhostSpec): string;
  /**
   * Applies the changes, tests the whole configuration and reloads. On a failed test every
   * touched vhost is restored to its previous state and a SystemError carries nginx's message.
   */
  apply(changes: VhostChange[]): Promise<void>;
  /**
   * Rewrites each given vhost whose file is there and whose text differs from what the current
   * templates make, keeping its link; tests and reloads once, and not at all when none differs.
   * Resolves with the names rewritten; a failed test puts them all back and throws.
   */
  refresh(specs: VhostSpec[]): Promise<string[]>;
  state(name: string): Promise<VhostState>;
  /** The vhosts of one kind written or linked, in name order (a link whose file is gone is `written: false`). */
  list(kind: VhostSpec['kind']): Promise<VhostState[]>;
  /** Reload without changes (for example after a new CRL). */
  reload(): Promise<void>;
}

// ---------- certificates (certbot) ----------

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

// ---------- tunnel server (chisel) ----------

export interface TunnelCredential {
  user: string;
  password: string;
}

export interface TunnelServerAdapter {
  /** Pinned, checksummed install plus the service unit; idempotent. */
  install(): Promise<void>;
  /**
   * Rewrites the authfile so only these reverse ports are allowed (chisel reloads it); restarts the
   * tunnel server only when a revoked port's client session is still connected (revoked-sessions.ts).
   */
  setAllowedPorts(ports: number[]): Promise<void>;
  allowedPorts(): Promise<number[]>;
  /**
   * Which of these ports have a client connected: while a client's session is up, chisel listens on
   * 127.0.0.1:<port> for each of its reverse remotes (it has no status API).
   */
  connectedPorts(ports: readonly number[]): Promise<Set<number>>;
  /** The client credential, created once; clients take it from the AUTH environment variable. */
  credential(): Promise<TunnelCredential>;
  /**
   * The host key's fingerprint as chisel prints it, which clients pin with --fingerprint, from
   * memory kept while a watch on the key's directory sees no change (a key put back from a backup
   * counts as soon as the watch tells, within milliseconds; host-key-watch.ts). On a box the
   * installer makes the key and this never does: a missing key is an error. The sandbox, which has
   * no installer, makes it on first use.
   */
  fingerprint(): Promise<string>;
}

// ---------- auth portal (Authelia) ----------

export interface PortalUser {
  username: string;
  displayname: string;
  email: string;
  groups: string[];
  /** bcrypt hash, never returned by the API */
  password: string;
}

export interface ProtectedSiteRule {
  fqdn: string;
  /** empty: every authenticated user */
  allowedUsers: string[];
}

export interface AuthPortalAdapter {
  /**
   * Configuration, secrets (generated once, 0600), the users database and the service, which is
   * started last; idempotent across retries. `users` must not be empty: Authelia would not start.
   */
  install(opts: { domain: string; users: readonly PortalUser[] }): Promise<void>;
  /** Unchanged file, same array: treat it as read-only. */
  readUsers(): Promise<readonly PortalUser[]>;
  /** The whole list; the file is edited in place so an operator's comments survive. */
  writeUsers(users: readonly PortalUser[]): Promise<void>;
  /** Stores a TOTP secret for the user through the portal's storage CLI. */
  setTotp(username: string, base32Secret: string): Promise<void>;
  setAccessRules(rules: ProtectedSiteRule[]): Promise<void>;
  restart(): Promise<void>;
}

// ---------- services (systemd + journal) ----------

export const SERVICE_NAMES = ['proxy', 'tunnel-server', 'auth-portal', 'panel'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];
export const SERVICE_ACTIONS = ['start', 'stop', 'restart', 'reload'] as const;
export type ServiceAction = (typeof SERVICE_ACTIONS)[number];

export interface ServiceStatus {
  name: ServiceName;
  status: 'active' | 'inactive' | 'failed' | 'unknown';
  uptime: string;
}

export interface LogLine {
  timestamp: string;
  message: string;
}

/** An async stream of log lines; `close()` ends the follow process. */
export interface LogFollow extends AsyncIterable<LogLine> {
  close(): void;
}

export interface ServicesAdapter {
  status(name: ServiceName): Promise<ServiceStatus>;
  control(name: ServiceName, action: ServiceAction): Promise<void>;
  follow(name: ServiceName, backlog: number): LogFollow;
}

// ---------- dns ----------

export interface DnsAdapter {
  /** IPv4 addresses of the name; an empty list when it does not resolve (NXDOMAIN, NODATA). */
  resolve4(name: string): Promise<string[]>;
}

// ---------- stats ----------

export interface SystemStats {
  cpu: { usage: number; cores: number };
  memory: { total: number; used: number; free: number };
  disk: { total: number; used: number; free: number };
  uptime: number;
}

export interface StatsAdapter {
  /** Cached for 2 s. */
  snapshot(): Promise<SystemStats>;
}

// ---------- pki (openssl) ----------

export interface SignedClientCert {
  serial: string; // uppercase hex, as nginx reports $ssl_client_serial
  certPem: string;
  /** notAfter, ISO 8601 UTC: callers record it without parsing the PEM (the fake PKI's is no X.509). */
  expiresAt: string;
}

export interface IssuedClientCert extends SignedClientCert {
  keyPem: string;
}

export interface PkiAdapter {
  ensureCa(): Promise<{ caPath: string; crlPath: string }>;
  /** CN is `admin` or `agent:<label>`. */
  issueClientCert(commonName: string, days?: number): Promise<IssuedClientCert>;
  toPkcs12(cert: IssuedClientCert, password: string): Promise<Buffer>;
  /** The CA certificate (PEM) clients trust the panel's client certificates by. */
  caCertificate(): Promise<string>;
  /** Rejects with an InvalidCsrError unless the text is one PEM CSR whose signature verifies. */
  verifyCsr(csrPem: string): Promise<void>;
  /** Signs a CSR with the subject forced to the given CN; a bad CSR rejects with an InvalidCsrError. */
  signCsr(csrPem: string, commonName: string): Promise<SignedClientCert>;
  revoke(serial: string): Promise<void>;
  /** Regenerates the CRL file nginx reads and returns its path. */
  writeCrl(): Promise<string>;
}

// ---------- site storage ----------

export interface SiteStorageAdapter {
  /** Where a site's files live: `<sites root>/<site id>`, the directory nginx serves. */
  dirOf(siteId: string): string;
  /** Creates the (empty) directory and returns its path; fails if it exists. */
  create(siteId: string): Promise<string>;
  /** Removes the directory with everything in it; a missing one is not an error. */
  remove(siteId: string): Promise<void>;
}

// ---------- the bundle ----------

export interface System {
  proxy: ProxyAdapter;
  certs: CertsAdapter;
  tunnelServer: TunnelServerAdapter;
  authPortal: AuthPortalAdapter;
  services: ServicesAdapter;
  dns: DnsAdapter;
  stats: StatsAdapter;
  pki: PkiAdapter;
  siteStorage: SiteStorageAdapter;
}
