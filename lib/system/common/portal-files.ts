// Authelia's files, shared by host and sandbox: configuration, users database, secrets and the
// access rules. Files are JSON, which is valid YAML 1.2, so what we write we can read back exactly.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { writeSecretFile } from '../atomic-write.ts';
import type { SystemConfig } from '../config.ts';
import { assertFqdn, assertUsername } from '../names.ts';
import { SystemError, type PortalUser, type ProtectedSiteRule } from '../types.ts';
import { readOrNull } from './fs.ts';

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

const BCRYPT = /^\$2[aby]\$\d{2}\$[./A-Za-z0-9]{53}$/;

export function renderAccessRules(rules: ProtectedSiteRule[], adminGroup: string): Array<Record<string, unknown>> {
  return rules.flatMap((r) => {
    const domain = [assertFqdn(r.fqdn)];
    if (r.allowedUsers.length === 0) return [{ domain, policy: 'two_factor' }];
    const subject = [...r.allowedUsers.map((u) => `user:${assertUsername(u)}`), `group:${adminGroup}`];
    // first matching rule wins: the listed users and the admins pass, everybody else is denied
    return [{ domain, policy: 'two_factor', subject }, { domain, policy: 'deny' }];
  });
}

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
    access_control: { default_policy: 'two_factor', rules: renderAccessRules(c.rules, c.adminGroup) },
    session: { secret: c.secrets.sessionSecret, cookies: [{ domain, authelia_url: portalUrl }] },
    regulation: { max_retries: 5, find_time: '2m', ban_time: '10m' },
    storage: { encryption_key: c.secrets.storageEncryptionKey, local: { path: c.storagePath } },
    notifier: { filesystem: { filename: c.notifierPath } },
  };
  return `# managed by relay-panel (JSON is YAML); changes here are overwritten\n${JSON.stringify(config, null, 2)}\n`;
}

export function renderUsersDatabase(users: PortalUser[]): string {
  const out: Record<string, { displayname: string; password: string; email: string; groups: string[] }> = {};
  for (const u of users) {
    assertUsername(u.username);
    if (!BCRYPT.test(u.password)) throw new SystemError(`Password of '${u.username}' is not a bcrypt hash`);
    if (out[u.username]) throw new SystemError(`Duplicate user '${u.username}'`);
    out[u.username] = { displayname: u.displayname, password: u.password, email: u.email, groups: [...u.groups] };
  }
  return `# managed by relay-panel (JSON is YAML)\n${JSON.stringify({ users: out }, null, 2)}\n`;
}

export function parseUsersDatabase(text: string): PortalUser[] {
  const body = text.replace(/^#.*$/gm, '').trim();
  if (body === '') return [];
  const parsed = JSON.parse(body) as { users?: Record<string, Partial<PortalUser>> | null };
  return Object.entries(parsed.users ?? {})
    .map(([username, u]) => ({
      username,
      displayname: String(u.displayname ?? username),
      email: String(u.email ?? ''),
      groups: Array.isArray(u.groups) ? u.groups.map(String) : [],
      password: String(u.password ?? ''),
    }))
    .sort((a, b) => a.username.localeCompare(b.username));
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
  private readonly notifierPath: string;

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

  async install(domain: string): Promise<void> {
    assertFqdn(domain);
    const state = { ...(await this.state()), domain };
    await this.saveState(state);
    if ((await readOrNull(this.usersPath)) === null) await writeSecretFile(this.usersPath, renderUsersDatabase([]));
    await this.writeConfiguration(state);
  }

  async setAccessRules(rules: ProtectedSiteRule[]): Promise<void> {
    renderAccessRules(rules, this.opts.adminGroup); // validates before anything is saved
    const state = { ...(await this.state()), rules };
    await this.saveState(state);
    await this.writeConfiguration(state);
  }

  async readUsers(): Promise<PortalUser[]> {
    const text = await readOrNull(this.usersPath);
    return text === null ? [] : parseUsersDatabase(text);
  }

  async writeUsers(users: PortalUser[]): Promise<void> {
    await writeSecretFile(this.usersPath, renderUsersDatabase(users));
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
    await writeSecretFile(this.configPath, text);
  }

  private async state(): Promise<PortalState> {
    return (await readJson<PortalState>(this.statePath)) ?? { domain: null, rules: [] };
  }

  private async saveState(state: PortalState): Promise<void> {
    await writeSecretFile(this.statePath, JSON.stringify(state, null, 2) + '\n');
  }
}

async function readJson<T>(path: string): Promise<T | null> {
  const text = await readOrNull(path);
  return text === null ? null : (JSON.parse(text) as T);
}
