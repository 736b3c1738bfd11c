import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { AppError, rateLimited } from '../errors.ts';
import type { JsonCollection } from '../state/collection.ts';
import type { EnrollmentToken } from '../state/documents.ts';
import { InvalidCsrError, type System } from '../system/types.ts';
import { FixedWindowRateLimiter } from '../rate-limit.ts';
import { findByToken, hashToken } from '../token-hash.ts';
import type { AgentCerts } from './agents.ts';
import type { CapabilitySet } from './capability-set.ts';
import type { LabelClaims } from './label-claims.ts';
import type { EnrollmentTokenCreate } from './schema.ts';


/** One answer (Portlama's words for an unknown token) for unknown, used and expired tokens alike: the caller learns nothing about which. */
const INVALID_TOKEN = () => new AppError(401, 'Invalid enrollment token');
const TOKEN_OUTSTANDING = (label: string) => new AppError(409, `An unexpired enrollment token for '${label}' already exists`);
const INVALID_CSR = () => new AppError(400, 'Invalid certificate signing request');
const ENROLLMENTS_PER_MINUTE = 10;

export interface EnrollmentDeps {
  /** The store's `enrollment-tokens.json` document. */
  tokens: JsonCollection<EnrollmentToken[]>;
  config: { readonly value: Config };
  system: Pick<System, 'pki'>;
  clock: Clock;
  capabilities: CapabilitySet;
  claims: LabelClaims;
  agents: AgentCerts;
}

const isLive = (t: EnrollmentToken, now: number) => t.usedAt === null && Date.parse(t.expiresAt) > now;

/**
 * One-time enrollment tokens (POST /api/certs/agent/enroll) and their redemption by an agent that
 * has only a key pair (POST /api/enroll). Tokens live in the store's `enrollment-tokens.json` document (0600), hashed.
 */
export class Enrollment {
  readonly #limiter = new FixedWindowRateLimiter(ENROLLMENTS_PER_MINUTE, 60_000);
  #tokens: Promise<JsonCollection<EnrollmentToken[]>> | undefined;

  constructor(private readonly deps: EnrollmentDeps) {}

  #collection(): Promise<JsonCollection<EnrollmentToken[]>> {
    this.#tokens ??= Promise.resolve(this.deps.tokens);
    return this.#tokens;
  }

  async createToken(input: EnrollmentTokenCreate): Promise<{ token: string; label: string; expiresAt: string }> {
    const capabilities = this.deps.capabilities.check(input.capabilities);
    const allowedSites = this.deps.agents.checkSites(input.allowedSites);
    // a label already held gets its 409 now rather than when the agent tries to enroll
    this.deps.claims.claim(input.label)();
    const now = this.deps.clock.now();
    const minutes = input.expiresInMinutes ?? this.deps.config.value.certs.enrollmentTokenMinutes;
    const token = randomBytes(32).toString('base64url');
    const expiresAt = new Date(now + minutes * 60_000).toISOString();
    const tokens = await this.#collection();
    await tokens.update((list) => {
      // spent and expired tokens are of no further use
      const live = list.filter((t) => isLive(t, now));
      // two tokens for one label would race to enroll it: the second is refused until the first is spent or expires
      if (live.some((t) => t.label === input.label)) throw TOKEN_OUTSTANDING(input.label);
      live.push({ tokenHash: hashToken(token), label: input.label, capabilities, allowedSites, createdAt: new Date(now).toISOString(), expiresAt, usedAt: null });
      list.splice(0, list.length, ...live);
    });
    return { token, label: input.label, expiresAt };
  }

  /** Rate-limited per client address; the token is consumed only by a verified CSR. */
  async enroll(input: { token: string; csr: string }, clientAddress: string | undefined): Promise<{ label: string; cert: string; caCert: string; serial: string; expiresAt: string }> {
    const now = this.deps.clock.now();
    this.#limiter.prune(now);
    const address = clientAddress ?? 'unknown';
    if (!this.#limiter.take(address, now)) throw rateLimited('Too many enrollment attempts. Try again later.', this.#limiter.retryInMs(address, now));
    try {
      await this.deps.system.pki.verifyCsr(input.csr);
    } catch (error) {
      if (error instanceof InvalidCsrError) throw INVALID_CSR();
      throw error;
    }
    const tokens = await this.#collection();
    let release = () => {};
    // check, claim and consume in one synchronous update: concurrent redemptions get one winner
    const record = await tokens.update((list) => {
      const found = findByToken(list, input.token);
      if (!found || !isLive(found, now)) throw INVALID_TOKEN();
      release = this.deps.claims.claim(found.label);
      found.usedAt = new Date(now).toISOString();
      return { ...found };
    }).catch((error) => {
      release();
      throw error;
    });
    try {
      const signed = await this.deps.system.pki.signCsr(input.csr, `agent:${record.label}`);
      const { serial, certPem, expiresAt } = signed;
      await this.deps.agents.register({ label: record.label, serial, capabilities: record.capabilities, allowedSites: this.deps.agents.sitesStillGranted(record.allowedSites, record.createdAt), expiresAt, enrollmentMethod: 'hardware-bound' });
      // Portlama's field names: its agents read `cert` and `caCert`
      return { label: record.label, cert: certPem, caCert: await this.deps.system.pki.caCertificate(), serial, expiresAt };
    } catch (error) {
      // the agent did nothing wrong: give the token back so it can try again
      await tokens.update((list) => {
        const found = findByToken(list, input.token);
        if (found) found.usedAt = null;
      });
      throw error;
    } finally {
      release();
    }
  }

  flush(): Promise<void> {
    return this.#tokens ? this.#tokens.then((t) => t.flush()) : Promise.resolve();
  }
}
