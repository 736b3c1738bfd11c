// Invitations to the portal: an admin invites a username and email; the invitee opens the link
// (public, no client certificate) and sets a password, which creates the portal user.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { ConfigStore } from '../config.ts';
import { AppError, rateLimited } from '../errors.ts';
import { jsonBytes } from '../json-bytes.ts';
import type { Logger } from '../log.ts';
import { accessUrls } from '../stack-hosts.ts';
import type { PublicLinks } from '../public-links.ts';
import type { InvitationRecord } from '../state/schemas.ts';
import type { Store } from '../state/store.ts';
import { FixedWindowRateLimiter } from '../rate-limit.ts';
import { USER_ERRORS } from '../users/errors.ts';
import type { UserService } from '../users/service.ts';
import type { InvitationCreate } from './schema.ts';
import { findByToken, hashToken } from '../token-hash.ts';
import { newInviteToken } from './token.ts';

export interface InvitationDeps {
  config: ConfigStore;
  store: Store;
  clock: Clock;
  log: Logger;
  users: UserService;
  /** where the invite link and the portal's address point (the sandbox's own server, or nginx) */
  publicLinks?: PublicLinks;
}

export type InvitationStatus = 'pending' | 'accepted' | 'expired';
export type PublicInvitation = Omit<InvitationRecord, 'tokenHash'> & { status: InvitationStatus };

/** Portlama's answers, which its clients show: an unknown token or id is 404, a spent invitation 410. */
export const INVITATION_NOT_FOUND = 'Invitation not found';
const INVITATION_USED = 'This invitation has already been used';
const INVITATION_EXPIRED = 'This invitation has expired';
export const PENDING_EXISTS = 'A pending invitation already exists for this username';
/** Tries per client address and minute on the public routes. */
export const INVITE_TRIES_PER_MINUTE = 10;
const MINUTE_MS = 60_000;
const DAY_MS = 24 * 60 * 60 * 1000;

export class InvitationService {
  readonly #deps: InvitationDeps;
  readonly #limiter = new FixedWindowRateLimiter(INVITE_TRIES_PER_MINUTE, MINUTE_MS);
  #prunedAt = 0;
  /** The list's bytes, good until the collection changes or the next pending invitation expires. */
  #listCache: { records: readonly InvitationRecord[]; validUntil: number; bytes: Uint8Array<ArrayBuffer> } | null = null;

  constructor(deps: InvitationDeps) {
    this.#deps = deps;
  }

  /** `{"invitations":[...]}` newest first, with each one's status; never a token or its hash. */
  listJson(): Uint8Array<ArrayBuffer> {
    const records = this.#deps.store.invitations.value;
    const now = this.#deps.clock.now();
    const cache = this.#listCache;
    if (cache && cache.records === records && now < cache.validUntil) return cache.bytes;
    const invitations = [...records].reverse().sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
    const expiries = records.filter((r) => this.#status(r, now) === 'pending').map((r) => Date.parse(r.expiresAt));
    const bytes = jsonBytes({ invitations: invitations.map((r) => this.#public(r, now)) });
    this.#listCache = { records, validUntil: Math.min(Infinity, ...expiries), bytes };
    return bytes;
  }

  async create(input: InvitationCreate): Promise<{ invitation: PublicInvitation; inviteUrl: string; token: string }> {
    if (await this.#deps.users.exists(input.username)) throw new AppError(409, USER_ERRORS.exists);
    const now = this.#deps.clock.now();
    const token = newInviteToken();
    const record: InvitationRecord = {
      id: randomUUID(),
      username: input.username,
      email: input.email,
      displayname: input.displayname ?? input.username,
      groups: input.groups,
      tokenHash: hashToken(token),
      createdAt: new Date(now).toISOString(),
      expiresAt: new Date(now + input.expiresInDays * DAY_MS).toISOString(),
      used: false,
      acceptedAt: null,
    };
    await this.#deps.store.invitations.update((all) => {
      if (all.some((r) => r.username === input.username && this.#status(r, now) === 'pending')) throw new AppError(409, PENDING_EXISTS);
      all.push(record);
    });
    this.#deps.log.info(`Invitation ${record.id} created for '${record.username}', expires ${record.expiresAt}`);
    // the panel's /invite/ page is public: nginx serves it without a client certificate
    return { invitation: this.#public(record, now), inviteUrl: `${this.#urls().panel}/invite/${token}`, token };
  }

  async delete(id: string): Promise<void> {
    await this.#deps.store.invitations.update((all) => {
      const index = all.findIndex((r) => r.id === id);
      if (index < 0) throw new AppError(404, INVITATION_NOT_FOUND);
      all.splice(index, 1);
    });
    this.#deps.log.info(`Invitation ${id} deleted`);
  }

  /** Counts one try on a public route from `address`: 429 past the limit. */
  takeTry(address: string | undefined): void {
    const now = this.#deps.clock.now();
    if (now - this.#prunedAt >= MINUTE_MS) {
      this.#limiter.prune(now);
      this.#prunedAt = now;
    }
    if (!this.#limiter.take(address ?? '', now)) throw rateLimited('Rate limit exceeded', this.#limiter.retryInMs(address ?? '', now));
  }

  /** What the invitee sees before choosing a password. */
  show(token: string): { username: string; email: string; expiresAt: string } {
    const { username, email, expiresAt } = this.#usable(this.#deps.store.invitations.value, token, this.#deps.clock.now());
    return { username, email, expiresAt };
  }

  /**
   * Uses the invitation up in one store update (so of concurrent accepts exactly one gets past
   * it), then creates the user with the users API's rules and restart. When that fails the
   * invitation is given back, so nothing is half-done. The new user gets a TOTP secret at once:
   * the portal asks for a second factor and has no other way to enroll one.
   */
  async accept(token: string, password: string): Promise<{ username: string; loginUrl: string; totpUri: string | null }> {
    const invitations = this.#deps.store.invitations;
    const claimed = await invitations.update((all) => {
      const record = this.#usable(all, token, this.#deps.clock.now());
      record.used = true;
      record.acceptedAt = new Date(this.#deps.clock.now()).toISOString();
      return { ...record };
    });
    try {
      await this.#deps.users.create({ username: claimed.username, displayname: claimed.displayname, email: claimed.email, groups: claimed.groups, password });
    } catch (error) {
      await invitations.update((all) => {
        const record = all.find((r) => r.id === claimed.id);
        if (record) Object.assign(record, { used: false, acceptedAt: null });
      });
      throw error;
    }
    this.#deps.log.info(`Invitation ${claimed.id} accepted: portal user '${claimed.username}' created`);
    const totpUri = await this.#deps.users.enrollTotp(claimed.username);
    return { username: claimed.username, loginUrl: `${this.#urls().authPortal}/`, totpUri };
  }

  /**
   * The pending record a token opens. The hash is compared in constant time against every stored
   * one (no early exit), so the time taken says nothing about which stored token is nearest; only
   * the holder of a real token learns that it is used (410) or expired (410), in Portlama's order.
   */
  #usable<T extends InvitationRecord>(all: T[] | readonly T[], token: string, now: number): T {
    const found = findByToken(all, token);
    if (!found) throw new AppError(404, INVITATION_NOT_FOUND);
    const status = this.#status(found, now);
    if (status === 'accepted') throw new AppError(410, INVITATION_USED);
    if (status === 'expired') throw new AppError(410, INVITATION_EXPIRED);
    return found;
  }

  #status(record: InvitationRecord, now: number): InvitationStatus {
    if (record.used) return 'accepted';
    return Date.parse(record.expiresAt) <= now ? 'expired' : 'pending';
  }

  #public(record: InvitationRecord, now: number): PublicInvitation {
    const { tokenHash: _secret, ...shown } = record;
    return { ...shown, groups: [...shown.groups], status: this.#status(record, now) };
  }

  /** The routes are gated on COMPLETED, and onboarding sets the domain before that. */
  #urls() {
    const { domain, ip, system } = this.#deps.config.value;
    return this.#deps.publicLinks?.accessUrls(domain ?? ip, ip) ?? accessUrls(domain ?? ip, ip, system.ports);
  }

}
