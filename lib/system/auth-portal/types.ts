// The auth portal (Authelia) adapter as the domain services see it; host.ts drives the real program, sandbox.ts plays it.

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
  /** empty (and not `restricted`): every authenticated user */
  allowedUsers: string[];
  /** groups let in beside the users */
  groups?: string[];
  /** only the listed users and groups and the admins, even when both lists are empty */
  restricted?: boolean;
  /** checked first, in order: a path, network or method let through, refused or asked a factor */
  rules?: PortalPathRule[];
}

export interface PortalPathRule {
  resources?: string[];
  networks?: string[];
  methods?: string[];
  policy: 'bypass' | 'deny' | 'one_factor' | 'two_factor';
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
