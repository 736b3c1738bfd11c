import type { Clock } from '../clock.ts';
import { AppError, agentCertificateNotFound } from '../errors.ts';
import { jsonBytes } from '../json-bytes.ts';
import type { AgentRecord } from '../state/schemas.ts';
import type { Store } from '../state/store.ts';
import type { System } from '../system/types.ts';
import type { BundleFiles } from './bundle-files.ts';
import type { CapabilitySet } from './capability-set.ts';
import type { LabelClaims } from './label-claims.ts';
import type { Revoker } from './revocation.ts';
import type { AgentCreate, AgentGrantsUpdate } from './schema.ts';
import { newP12Password } from './secrets.ts';

export interface AgentCertDeps {
  store: Pick<Store, 'agents' | 'sites' | 'revocations'>;
  system: Pick<System, 'pki'>;
  clock: Clock;
  capabilities: CapabilitySet;
  claims: LabelClaims;
  bundles: BundleFiles;
  revoker: Revoker;
}

/** Listing shape: the record without internals, `revoked` as a boolean next to `revokedAt`. */
function listed(a: AgentRecord) {
  return { label: a.label, serial: a.serial, capabilities: a.capabilities, allowedSites: a.allowedSites, enrollmentMethod: a.enrollmentMethod, createdAt: a.createdAt, expiresAt: a.expiresAt, revoked: a.revokedAt !== null, revokedAt: a.revokedAt };
}

/** The agent registry behind /api/certs/agent: issue, list, download, revoke, change grants. */
export class AgentCerts {
  readonly listJson: () => Uint8Array<ArrayBuffer>;

  constructor(private readonly deps: AgentCertDeps) {
    this.listJson = deps.store.agents.memo((agents) => jsonBytes({ agents: agents.map(listed) }));
  }

  /** The requested site names without duplicates; 400 `Unknown site '<name>'` for the first that names no site. */
  checkSites(requested: readonly string[]): string[] {
    const names = new Set(this.deps.store.sites.value.map((s) => s.name));
    const unique = [...new Set(requested)];
    const unknown = unique.find((name) => !names.has(name));
    if (unknown !== undefined) throw new AppError(400, `Unknown site '${unknown}'`, { site: unknown });
    return unique;
  }

  /**
   * The names of a grant made at `grantedAt` that still name a site made by then. A grant held
   * elsewhere until later (an enrollment token) loses a site deleted meanwhile, even when a new
   * site took its name.
   */
  sitesStillGranted(names: readonly string[], grantedAt: string): string[] {
    const sites = this.deps.store.sites.value;
    return names.filter((name) => sites.some((s) => s.name === name && s.createdAt <= grantedAt));
  }

  /** The unrevoked record of a label. */
  current(label: string): AgentRecord | undefined {
    return this.deps.store.agents.value.find((a) => a.label === label && a.revokedAt === null);
  }

  async create(input: AgentCreate): Promise<{ label: string; serial: string; expiresAt: string; p12Password: string }> {
    const capabilities = this.deps.capabilities.check(input.capabilities);
    const allowedSites = this.checkSites(input.allowedSites);
    const release = this.deps.claims.claim(input.label);
    try {
      const cert = await this.deps.system.pki.issueClientCert(`agent:${input.label}`);
      const p12Password = newP12Password();
      const path = this.deps.bundles.agentPath(input.label);
      try {
        await this.deps.bundles.write(path, await this.deps.system.pki.toPkcs12(cert, p12Password));
        await this.register({ label: input.label, serial: cert.serial, capabilities, allowedSites, expiresAt: cert.expiresAt, enrollmentMethod: 'p12' });
      } catch (error) {
        // the certificate exists in the CA's index but nothing refers to it: revoke it so it can never be used
        await this.deps.bundles.remove(path);
        await this.deps.system.pki.revoke(cert.serial).catch(() => undefined);
        throw error;
      }
      return { label: input.label, serial: cert.serial, expiresAt: cert.expiresAt, p12Password };
    } finally {
      release();
    }
  }

  /** Stores the record of a newly signed certificate (also used by enrollment). */
  register(record: Omit<AgentRecord, 'createdAt' | 'revokedAt'>): Promise<void> {
    const createdAt = new Date(this.deps.clock.now()).toISOString();
    return this.deps.store.agents.update((agents) => {
      agents.push({ ...record, createdAt, revokedAt: null });
    });
  }

  async download(label: string): Promise<Buffer<ArrayBuffer>> {
    if (!this.current(label)) throw agentCertificateNotFound(label);
    const bundle = await this.deps.bundles.read(this.deps.bundles.agentPath(label));
    if (!bundle) throw new AppError(404, `Agent certificate '${label}' has no PKCS#12 bundle (it was enrolled with a CSR)`);
    return bundle;
  }

  async revoke(label: string): Promise<{ label: string; serial: string; revokedAt: string }> {
    const agent = this.current(label);
    if (!agent) throw agentCertificateNotFound(label);
    const revokedAt = new Date(this.deps.clock.now()).toISOString();
    await this.deps.store.agents.update((agents) => {
      for (const a of agents) if (a.label === label && a.serial === agent.serial) a.revokedAt = revokedAt;
    });
    await this.deps.bundles.remove(this.deps.bundles.agentPath(label));
    await this.deps.revoker.revoke(agent.serial, label);
    return { label, serial: agent.serial, revokedAt };
  }

  async setCapabilities(label: string, requested: readonly string[]): Promise<{ label: string; capabilities: string[] }> {
    const capabilities = this.deps.capabilities.check(requested);
    await this.#change(label, (a) => (a.capabilities = capabilities));
    return { label, capabilities };
  }

  async setAllowedSites(label: string, requested: readonly string[]): Promise<{ label: string; allowedSites: string[] }> {
    const allowedSites = this.checkSites(requested);
    await this.#change(label, (a) => (a.allowedSites = allowedSites));
    return { label, allowedSites };
  }

  /**
   * Capabilities and allowed sites in one change: every value is checked before anything is
   * written, so a refused request leaves both lists as they were. Answers what is stored.
   */
  async setGrants(label: string, requested: AgentGrantsUpdate): Promise<{ label: string; capabilities: string[]; allowedSites: string[] }> {
    const capabilities = requested.capabilities && this.deps.capabilities.check(requested.capabilities);
    const allowedSites = requested.allowedSites && this.checkSites(requested.allowedSites);
    return this.#change(label, (a) => {
      if (capabilities) a.capabilities = capabilities;
      if (allowedSites) a.allowedSites = allowedSites;
      return { label, capabilities: [...a.capabilities], allowedSites: [...a.allowedSites] };
    });
  }

  /**
   * Takes a label's revoked records off the registry. Removal must never un-revoke: a serial not
   * yet on the revocation list (a revocation whose later steps failed) is put there first, and
   * the revocation list and the CA's CRL keep it after the record is gone.
   */
  async remove(label: string): Promise<{ label: string; serials: string[] }> {
    const revoked = this.deps.store.agents.value.filter((a) => a.label === label && a.revokedAt !== null);
    if (revoked.length === 0) {
      if (this.current(label)) throw new AppError(409, `Agent certificate '${label}' is active: revoke it before removing it`);
      throw agentCertificateNotFound(label);
    }
    const listed = new Set(this.deps.store.revocations.value.map((r) => r.serial.toUpperCase()));
    const unlisted = revoked.filter((a) => !listed.has(a.serial.toUpperCase()));
    if (unlisted.length > 0) await this.deps.revoker.revokeAll(unlisted.map((a) => ({ serial: a.serial, label })));
    const serials = new Set(revoked.map((a) => a.serial));
    await this.deps.store.agents.update((agents) => {
      for (let i = agents.length - 1; i >= 0; i--) if (agents[i]!.label === label && agents[i]!.revokedAt !== null && serials.has(agents[i]!.serial)) agents.splice(i, 1);
    });
    return { label, serials: [...serials] };
  }

  #change<R>(label: string, apply: (agent: AgentRecord) => R): Promise<R> {
    return this.deps.store.agents.update((agents) => {
      const agent = agents.find((a) => a.label === label && a.revokedAt === null);
      if (!agent) throw agentCertificateNotFound(label);
      return apply(agent);
    });
  }
}
