import type { Clock } from '../clock.ts';
import { AppError, errorMessage } from '../errors.ts';
import { KeyedLock } from '../keyed-lock.ts';
import { SystemError, type AutoRenewStatus, type CertInfo, type System } from '../system/types.ts';

/** Certificates this close to expiry are flagged (certbot renews at 30 days). */
const EXPIRING_SOON_DAYS = 30;
/** `certbot certificates` is slow: one run serves the listings of the next few seconds. */
const LIST_TTL_MS = 10_000;

/**
 * `domain` and `daysUntilExpiry` are Portlama's names, which its clients read; `name` and `daysLeft`
 * carry the same values under the names our alerts, metrics and webhooks already publish.
 */
export interface ListedCertificate {
  type: 'letsencrypt';
  domain: string;
  name: string;
  domains: string[];
  expiresAt: string;
  daysUntilExpiry: number;
  daysLeft: number;
  expiringSoon: boolean;
}

const listed = (c: CertInfo): ListedCertificate => ({
  type: 'letsencrypt',
  domain: c.domain,
  name: c.domain,
  domains: c.domains,
  expiresAt: c.expiresAt,
  daysUntilExpiry: c.daysLeft,
  daysLeft: c.daysLeft,
  expiringSoon: c.daysLeft <= EXPIRING_SOON_DAYS,
});

/** The box's public TLS certificates (certbot lineages): listing, timer status, forced renewal. */
export class LetsEncrypt {
  readonly #renewals = new KeyedLock();
  readonly #renewalFailureListeners = new Set<(name: string, reason: string) => void>();
  /** the last listing, kept for LIST_TTL_MS unless the adapter issued or renewed since */
  #cached: { at: number; changes: number; list: Promise<ListedCertificate[]> } | null = null;

  constructor(private readonly deps: { system: Pick<System, 'certs' | 'proxy'>; clock: Clock }) {}

  list(): Promise<ListedCertificate[]> {
    const now = this.deps.clock.now();
    const changes = this.deps.system.certs.changes();
    if (!this.#cached || now - this.#cached.at >= LIST_TTL_MS || this.#cached.changes !== changes) {
      const list = this.deps.system.certs.list().then((certs) => certs.map(listed).sort((a, b) => a.daysLeft - b.daysLeft || a.name.localeCompare(b.name)));
      this.#cached = { at: now, changes, list };
      // a failed run is not cached
      list.catch(() => {
        if (this.#cached?.list === list) this.#cached = null;
      });
    }
    return this.#cached.list;
  }

  /** Tells `listener` of each forced renewal that fails (the alerts); returns a function that stops it. */
  onRenewalFailure(listener: (name: string, reason: string) => void): () => void {
    this.#renewalFailureListeners.add(listener);
    return () => this.#renewalFailureListeners.delete(listener);
  }

  autoRenewStatus(): Promise<AutoRenewStatus> {
    return this.deps.system.certs.autoRenewStatus();
  }

  /** certbot renew --force-renewal for the lineage, then an nginx reload; unknown name 404. */
  renew(name: string): Promise<{ domain: string; newExpiry: string | null }> {
    return this.#renewals.run(name, async () => {
      this.#cached = null;
      if (!(await this.list()).some((c) => c.name === name)) throw new AppError(404, 'Certificate not found');
      try {
        // only certbot's failure is a failed renewal (the alert); a reload that fails after it is nginx's
        await this.deps.system.certs.renew(name).catch((error: unknown) => {
          for (const listener of this.#renewalFailureListeners) listener(name, errorMessage(error));
          throw error;
        });
        await this.deps.system.proxy.reload();
      } catch (error) {
        if (error instanceof SystemError) throw new AppError(500, 'Certificate renewal failed', errorMessage(error));
        throw error;
      }
      const renewed = (await this.list()).find((c) => c.name === name);
      return { domain: name, newExpiry: renewed?.expiresAt ?? null };
    });
  }
}
