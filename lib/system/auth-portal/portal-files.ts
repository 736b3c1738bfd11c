// Authelia's files, shared by host and sandbox: configuration, users database, secrets and the
// access rules. The configuration is JSON (valid YAML 1.2) and fully ours; the users database is
// real YAML that operators may edit by hand (lib/system/auth-portal/users-database.ts).
import { randomBytes } from 'node:crypto';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic, writeSecretFile } from '../common/atomic-write.ts';
import type { SystemConfig } from '../config.ts';
import { assertFqdn } from '../common/names.ts';
import { renderAccessControl, renderAccessRules } from './access-control.ts';
import { SystemError, type PortalUser, type ProtectedSiteRule } from '../types.ts';
import { readOrNull } from '../common/fs.ts';

/**
 * The users database's module, with the yaml package, loaded on first use (a request about portal
 * users or access, never the start): evaluated at load, yaml's 72 modules were in the startup
 * snapshot's heap (about 140 KB of the blob), which every start deserializes.
 */
const usersDatabase = () => import('./users-database.ts');

/**
 * The configuration and the users database: Authelia's user reads them through the directory's
 * group (setgid: every atomic write's new file takes it) and cannot write them. secrets.json and
 * relay-portal.json are the panel's alone (0600): Authelia gets the secrets inside its configuration.
 */
export const PORTAL_READ_MODE = 0o640;

export interface PortalSecrets {
  jwtSecret: string;
  sessionSecret: string;
  /** must never change once the storage exists, or Authelia cannot read its own database */
  storageEncryptionKey: string;
}

interface PortalState {
  domain: string | null;
  rules: ProtectedSiteRule[];
}

export interface PortalRenderContext {
  domain: string;
  httpsPort: number;
  listenPort: number;
  adminGroup: string;
  secrets: PortalSecrets;
  rules: ProtectedSiteRule[];
  usersPath: string;
  storagePath: string;
  notifierPath: string;
}

export { renderAccessRules };

export function renderPortalConfiguration(c: PortalRenderContext): string {
  const domain = assertFqdn(c.domain);
  const portalUrl = `https://auth.${domain}${c.httpsPort === 443 ? '' : `:${c.httpsPort}`}`;
  const config = {
    theme: 'auto',
    server: { address: `tcp://127.0.0.1:${c.listenPort}/` },
    log: { level: 'info' },
    totp: { issuer: domain },
    identity_validation: { reset_password: { jwt_secret: c.secrets.jwtSecret } },
    authentication_backend: {
      password_reset: { disable: true },
      file: { path: c.usersPath, watch: false, password: { algorithm: 'bcrypt', bcrypt: { variant: 'standard', cost: 12 } } },
    },
    access_control: renderAccessControl(c.rules, c.adminGroup),
    session: { secret: c.secrets.sessionSecret, cookies: [{ domain, authelia_url: portalUrl }] },
    regulation: { max_retries: 5, find_time: '2m', ban_time: '10m' },
    storage: { encryption_key: c.secrets.storageEncryptionKey, local: { path: c.storagePath } },
    notifier: { filesystem: { filename: c.notifierPath } },
  };
  return `# managed by relay-panel (JSON is YAML); changes here are overwritten\n${JSON.stringify(config, null, 2)}\n`;
}

/**
 * A TOTP secret as Authelia takes it: base32 (RFC 4648 alphabet), its `=` padding stripped.
 * Host and sandbox both store the stripped form.
 */
export function portalTotpSecret(secret: string): string {
  if (typeof secret !== 'string' || !/^[A-Z2-7]+=*$/.test(secret)) throw new SystemError('TOTP secret must be base32');
  return secret.replace(/=+$/, '');
}

/** The portal's files in `dir` (host: authelia.dir, sandbox: dataDir/system/authelia). */
export function createPortalFiles(config: SystemConfig, dir: string): PortalFiles {
  return new PortalFiles(dir, { httpsPort: config.ports.https, listenPort: config.ports.authPortal, adminGroup: config.authelia.adminGroup });
}

export class PortalFiles {
  readonly configPath: string;
  readonly usersPath: string;
  private readonly secretsPath: string;
  private readonly statePath: string;
  readonly storagePath: string;
  readonly notifierPath: string;
  #usersCache: { version: string; users: readonly PortalUser[] } | null = null;

  constructor(
    readonly dir: string,
    private readonly opts: { httpsPort: number; listenPort: number; adminGroup: string },
  ) {
    this.configPath = join(dir, 'configuration.yml');
    this.usersPath = join(dir, 'users_database.yml');
    this.secretsPath = join(dir, 'secrets.json');
    this.statePath = join(dir, 'relay-portal.json');
    this.storagePath = join(dir, 'db.sqlite3');
    this.notifierPath = join(dir, 'notification.txt');
  }

  /** Secrets are made once and reused on every later install: retries must not rotate them. */
  async secrets(): Promise<PortalSecrets> {
    const existing = await readJson<PortalSecrets>(this.secretsPath);
    if (existing?.jwtSecret && existing.sessionSecret && existing.storageEncryptionKey) return existing;
    const made: PortalSecrets = {
      jwtSecret: randomBytes(48).toString('base64url'),
      sessionSecret: randomBytes(48).toString('base64url'),
      storageEncryptionKey: randomBytes(48).toString('base64url'),
    };
    await writeSecretFile(this.secretsPath, JSON.stringify(made, null, 2) + '\n');
    return made;
  }

  /**
   * The users go in before the configuration that names their file, so whatever starts the portal
   * after this finds a database Authelia accepts (never an empty `users` map: see assertSomeUser).
   */
  async install(domain: string, users: readonly PortalUser[]): Promise<void> {
    assertFqdn(domain);
    await this.writeUsers(users);
    const state = { ...(await this.state()), domain };
    await this.saveState(state);
    await this.writeConfiguration(state);
  }

  async setAccessRules(rules: ProtectedSiteRule[]): Promise<void> {
    renderAccessControl(rules, this.opts.adminGroup); // validates before anything is saved
    const state = { ...(await this.state()), rules };
    await this.saveState(state);
    await this.writeConfiguration(state);
  }

  /**
   * The users, parsed again only when the file changed (a stat per call): the panel's own writes
   * and an operator's hand edits are both seen on the next read. The same array comes back while
   * the file is unchanged, so callers may cache what they derive from it by identity.
   */
  async readUsers(): Promise<readonly PortalUser[]> {
    const version = await fileVersion(this.usersPath);
    if (this.#usersCache?.version === version) return this.#usersCache.users;
    const text = await readOrNull(this.usersPath);
    const users = text === null ? [] : (await usersDatabase()).parseUsersDatabase(text);
    this.#usersCache = { version, users };
    return users;
  }

  /** Edits the file in place so hand-made comments and fields stay; written atomically, PORTAL_READ_MODE. */
  async writeUsers(users: readonly PortalUser[]): Promise<void> {
    const { updateUsersDatabase } = await usersDatabase();
    await writeFileAtomic(this.usersPath, updateUsersDatabase(await readOrNull(this.usersPath), users), PORTAL_READ_MODE);
  }

  /** Nothing before the first install: the configuration needs the domain. */
  private async writeConfiguration(state: PortalState): Promise<void> {
    if (!state.domain) return;
    const text = renderPortalConfiguration({
      domain: state.domain,
      httpsPort: this.opts.httpsPort,
      listenPort: this.opts.listenPort,
      adminGroup: this.opts.adminGroup,
      secrets: await this.secrets(),
      rules: state.rules,
      usersPath: this.usersPath,
      storagePath: this.storagePath,
      notifierPath: this.notifierPath,
    });
    await writeFileAtomic(this.configPath, text, PORTAL_READ_MODE);
  }

  private async state(): Promise<PortalState> {
    return (await readJson<PortalState>(this.statePath)) ?? { domain: null, rules: [] };
  }

  private async saveState(state: PortalState): Promise<void> {
    await writeSecretFile(this.statePath, JSON.stringify(state, null, 2) + '\n');
  }
}

/** Changes whenever the file is replaced (atomic writes make a new inode) or edited in place. */
async function fileVersion(path: string): Promise<string> {
  try {
    const st = await stat(path, { bigint: true });
    return `${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw e;
  }
}

async function readJson<T>(path: string): Promise<T | null> {
  const text = await readOrNull(path);
  return text === null ? null : (JSON.parse(text) as T);
}
