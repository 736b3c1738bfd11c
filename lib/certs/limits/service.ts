import { pathExists } from '../../system/common/fs.ts';
import type { Clock } from '../../clock.ts';
import type { ConfigStore } from '../../config.ts';
import { errorMessage } from '../../errors.ts';
import type { Logger } from '../../log.ts';
import type { Store } from '../../state/store.ts';
import { sameNames } from '../../system/certs/archive.ts';
import type { CertsAdapter, System } from '../../system/types.ts';
import { countAll, describeRefusal, wouldExceed, type CountedOrder, type Order } from './counts.ts';
import { LEDGER_KEEP_MS, limitsFor } from './defaults.ts';
import { failedValidations } from './failed-validation.ts';
import { IssuanceLedger } from './ledger.ts';
import { outsideOrders } from './outside-orders.ts';
import { loadPublicSuffixList } from './registered-domain.ts';
import { CertLimitRefusal } from './refusal.ts';
import type { LimitsAnswer } from './schema.ts';

/** The outside orders as one string: a read that finds the same ones changes no count. */
const outsideKey = (orders: readonly CountedOrder[]) => orders.map((o) => `${o.at} ${o.kind} ${o.names.join(',')}`).join('\n');

export interface IssuanceLimitsDeps {
  config: ConfigStore;
  store: Pick<Store, 'certIssuances'>;
  clock: Clock;
  log: Pick<Logger, 'warn'>;
  /** the unguarded adapter, whose archive holds the renewal timer's certificates too; none: the ledger alone */
  certs?: Pick<CertsAdapter, 'issuedSince'>;
}

/**
 * The ACME orders the panel places, counted against the CA's limits: an order that would go past
 * one is refused before certbot runs. Orders under way count at once, so two creates at the same
 * time cannot both take the last slot.
 */
export class IssuanceLimits {
  readonly ledger: IssuanceLedger;
  readonly #underWay = new Set<CountedOrder>();
  readonly #listeners = new Set<() => void>();
  /** the certificates stored outside the panel's orders, as last read (the timer's renewals) */
  #outside: CountedOrder[] = [];

  constructor(private readonly deps: IssuanceLimitsDeps) {
    this.ledger = new IssuanceLedger(deps);
  }

  #server(): string {
    return this.deps.config.value.system.acme.server;
  }

  #inForce() {
    const { certLimits, system } = this.deps.config.value;
    return limitsFor(this.#server(), certLimits, system.driver);
  }

  #orders(): CountedOrder[] {
    return [...this.ledger.records, ...this.#underWay, ...this.#outside];
  }

  /**
   * Reads what certbot stored within the longest window and keeps what no order of the panel
   * accounts for. A failed read keeps the last one: the ledger still counts, and the warning says why.
   */
  async #readOutside(): Promise<void> {
    if (!this.deps.certs) return;
    try {
      const versions = await this.deps.certs.issuedSince(this.deps.clock.now() - LEDGER_KEEP_MS);
      const { timeouts } = this.deps.config.value.system;
      const before = this.#outside;
      this.#outside = outsideOrders(versions, { recorded: this.ledger.records, underWay: [...this.#underWay] }, this.#server(), timeouts.certbotMs);
      // a timer renewal found here is counted from now on: the 80 % alert hears of it as of an order
      if (outsideKey(this.#outside) !== outsideKey(before)) this.#tell();
    } catch (error) {
      this.deps.log.warn(`certificate limits: reading certbot's archive failed: ${errorMessage(error)}`);
    }
  }

  #tell(): void {
    for (const listener of this.#listeners) listener();
  }

  /**
   * Reads certbot's archive again (the alerts' hourly check): the renewal timer's certificates
   * reach the counts, and the listeners, without waiting for a count or an order of the panel.
   */
  async refresh(): Promise<void> {
    await loadPublicSuffixList();
    await this.#readOutside();
  }

  /** Each limit's counts now (GET /api/certs/limits); the box's domain is listed even with none. */
  async counts(): Promise<LimitsAnswer> {
    await loadPublicSuffixList();
    await this.#readOutside();
    return this.countsLoaded();
  }

  /** `counts()` once the Public Suffix List is loaded, as it is after any order (the alert reads it then). */
  countsLoaded(): LimitsAnswer {
    const { source, limits } = this.#inForce();
    const domain = this.deps.config.value.domain;
    void this.ledger.prune().catch((error: unknown) => this.deps.log.warn(`certificate limits: pruning the ledger failed: ${errorMessage(error)}`));
    return { server: this.#server(), source, limits, counts: countAll(this.#orders(), this.#server(), limits, this.deps.clock.now(), domain ? [domain] : []) };
  }

  /**
   * Tells `listener` after each order is written to the ledger, and after a read of the archive
   * that changed what it counts (the 80 % alert); returns its removal.
   */
  onRecorded(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Checks the order against every limit and, in the same synchronous run, counts it as under way;
   * throws CertLimitRefusal naming the limit, the count and when the next slot frees.
   */
  async reserve(order: Order): Promise<CountedOrder> {
    await loadPublicSuffixList();
    await this.#readOutside();
    // from here to the add, nothing awaits: no other order can be checked in between
    const { source, limits } = this.#inForce();
    const now = this.deps.clock.now();
    const refused = wouldExceed(this.#orders(), this.#server(), limits, now, order);
    if (refused) throw new CertLimitRefusal(describeRefusal(refused, source), refused);
    const underWay: CountedOrder = { at: new Date(now).toISOString(), server: this.#server(), names: order.names.map((n) => n.toLowerCase()).sort(), kind: order.kind, outcome: 'issued', failedValidations: [] };
    this.#underWay.add(underWay);
    return underWay;
  }

  /** Writes the order's outcome to the ledger and stops counting it as under way. */
  async settle(underWay: CountedOrder, outcome: 'issued' | 'failed' | 'none', error?: unknown): Promise<void> {
    try {
      if (outcome === 'none') return;
      const failed = outcome === 'failed' ? failedValidations(error, underWay.names) : [];
      await this.ledger.add({ server: underWay.server, names: underWay.names, kind: underWay.kind, outcome, failedValidations: failed });
      // in the ledger now, and before the listeners count: an order under way and written is counted once
      this.#underWay.delete(underWay);
      this.#tell();
    } catch (e) {
      // the certificate is there (or certbot's failure is the answer): a ledger that missed one is logged, not the caller's failure
      this.deps.log.warn(`certificate limits: recording the order for ${underWay.names.join(', ')} failed: ${errorMessage(e)}`);
    } finally {
      this.#underWay.delete(underWay);
    }
  }

  /** `system` whose certificates adapter counts and guards each order (the other adapters are the same objects). */
  guard(system: System): System {
    return { ...system, certs: this.guardCerts(system.certs) };
  }

  /** Runs one order reserved against the limits and settles it in the ledger by its outcome. */
  async #ordered<R>(order: Order, run: () => Promise<R>, issued: (result: R) => boolean): Promise<R> {
    const underWay = await this.reserve(order);
    try {
      const result = await run();
      await this.settle(underWay, issued(result) ? 'issued' : 'none');
      return result;
    } catch (error) {
      await this.settle(underWay, 'failed', error);
      throw error;
    }
  }

  guardCerts(inner: CertsAdapter): CertsAdapter {
    const kindOf = async (lineage: string) => ((await pathExists(inner.paths(lineage).fullchain)) ? 'renewal' : 'new');
    const wasIssued = (result: { issued: boolean }) => result.issued;
    const issue: CertsAdapter['issue'] = async (fqdn, email) => {
      // a valid certificate is reused: no order, nothing to count
      if (await inner.has(fqdn)) return { issued: false, paths: inner.paths(fqdn) };
      return this.#ordered({ names: [fqdn], kind: await kindOf(fqdn) }, () => inner.issue(fqdn, email), wasIssued);
    };
    // the wildcard is one order for two names (the domain and `*.<domain>`), counted like any other
    const issueWildcard: CertsAdapter['issueWildcard'] = async (domain, email, dns) => {
      const names = [domain, `*.${domain}`];
      const current = await inner.names(domain);
      const covers = current !== null && current.includes(`*.${domain}`);
      // a valid wildcard is reused (a PUT sent again, a retry after a later step failed): no order,
      // so no limit may refuse it
      if (covers && (await inner.has(domain))) return { issued: false, paths: inner.paths(domain) };
      // a renewal is the same set of names again; a lineage of the bare domain grown by --expand is a new certificate
      const kind = current !== null && sameNames(current, names) ? 'renewal' : 'new';
      return this.#ordered({ names, kind }, () => inner.issueWildcard(domain, email, dns), wasIssued);
    };
    // counted under the lineage's own names (the wildcard's two), as the CA counts the certificate
    const renew: CertsAdapter['renew'] = async (fqdn) => {
      const current = await inner.names(fqdn);
      return this.#ordered({ names: current && current.length > 0 ? current : [fqdn], kind: 'renewal' }, () => inner.renew(fqdn), () => true);
    };
    // every other method (and any added later) is the adapter's own, called on it
    return new Proxy(inner, {
      get(target, key) {
        if (key === 'issue') return issue;
        if (key === 'renew') return renew;
        if (key === 'issueWildcard') return issueWildcard;
        const value: unknown = Reflect.get(target, key, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  }
}

