import { nameSetKey } from '../../system/certs/archive.ts';
import { registeredDomain } from './registered-domain.ts';
import { WINDOW_MS, type Limits, type LimitsSource } from './defaults.ts';
import { LIMIT_NAMES, type CertIssuanceRecord, type LimitCount, type LimitName } from './schema.ts';

// The four counts over the ledger, as sliding windows: an order counts until its time plus the
// window has passed. (Let's Encrypt refills by token bucket, which frees slots sooner than this
// window does: counting the whole window refuses a little early, never too late.)

/** What the counts read of a ledger entry (the ledger's records and the orders under way alike). */
export type CountedOrder = Pick<CertIssuanceRecord, 'at' | 'server' | 'names' | 'kind' | 'outcome' | 'failedValidations'>;

/** An order about to be placed. */
export interface Order {
  names: readonly string[];
  kind: 'new' | 'renewal';
}

/** The keys an order is counted under, per limit; `issued` false keeps only what a failure counts. */
function keysOf(order: CountedOrder, server: string): Array<[LimitName, string]> {
  const keys: Array<[LimitName, string]> = [['ordersPerAccount', server]];
  if (order.outcome === 'issued') {
    keys.push(['duplicatePerNameSet', nameSetKey(order.names)]);
    if (order.kind === 'new') for (const domain of new Set(order.names.map(registeredDomain))) keys.push(['newPerRegisteredDomain', domain]);
  }
  for (const name of order.failedValidations) keys.push(['failedValidationsPerHostname', name.toLowerCase()]);
  return keys;
}

const slot = (limit: LimitName, key: string) => `${limit}\u0000${key}`;

/** limit+key -> the times (epoch ms) of the orders counted under it within its window, oldest first. */
function tally(orders: readonly CountedOrder[], server: string, now: number): Map<string, { limit: LimitName; key: string; times: number[] }> {
  const out = new Map<string, { limit: LimitName; key: string; times: number[] }>();
  for (const order of orders) {
    if (order.server !== server) continue;
    const at = Date.parse(order.at);
    for (const [limit, key] of keysOf(order, server)) {
      if (at + WINDOW_MS[limit] <= now) continue;
      const entry = out.get(slot(limit, key)) ?? { limit, key, times: [] };
      entry.times.push(at);
      out.set(slot(limit, key), entry);
    }
  }
  for (const entry of out.values()) entry.times.sort((a, b) => a - b);
  return out;
}

/** When enough counted orders have left the window for one more: null while a slot is free. */
function nextFree(limit: LimitName, times: readonly number[], max: number | null): number | null {
  if (max === null || times.length < max) return null;
  return times[times.length - max]! + WINDOW_MS[limit];
}

function counted(limit: LimitName, key: string, times: readonly number[], limits: Limits): LimitCount {
  const max = limits[limit];
  const frees = nextFree(limit, times, max);
  return { limit, key, count: times.length, max, windowSeconds: WINDOW_MS[limit] / 1000, nextFreeAt: frees === null ? null : new Date(frees).toISOString() };
}

/**
 * Every key with an order in its window, plus the account's orders and the given registered
 * domains (the box's own) even at zero: the certificates page's table.
 */
export function countAll(orders: readonly CountedOrder[], server: string, limits: Limits, now: number, alwaysDomains: readonly string[] = []): LimitCount[] {
  const tallies = tally(orders, server, now);
  const out: LimitCount[] = [];
  const seen = new Set(tallies.keys());
  for (const { limit, key, times } of tallies.values()) out.push(counted(limit, key, times, limits));
  const zero = (limit: LimitName, key: string) => {
    if (!seen.has(slot(limit, key))) out.push(counted(limit, key, [], limits));
    seen.add(slot(limit, key));
  };
  zero('ordersPerAccount', server);
  for (const domain of alwaysDomains) zero('newPerRegisteredDomain', registeredDomain(domain));
  return out.sort((a, b) => LIMIT_NAMES.indexOf(a.limit) - LIMIT_NAMES.indexOf(b.limit) || b.count - a.count || a.key.localeCompare(b.key));
}

/** The first count the order would take past its limit, or null when the order fits them all. */
export function wouldExceed(orders: readonly CountedOrder[], server: string, limits: Limits, now: number, order: Order): LimitCount | null {
  const tallies = tally(orders, server, now);
  // the order as if issued with every name failing: each key it could be counted under
  const probe: CountedOrder = { at: new Date(now).toISOString(), server, names: [...order.names], kind: order.kind, outcome: 'issued', failedValidations: [...order.names] };
  for (const [limit, key] of keysOf(probe, server)) {
    const max = limits[limit];
    const times = tallies.get(slot(limit, key))?.times ?? [];
    if (max !== null && times.length >= max) return counted(limit, key, times, limits);
  }
  return null;
}

const DESCRIPTIONS: Record<LimitName, (max: number) => string> = {
  newPerRegisteredDomain: (max) => `${max} new certificates per registered domain per 7 days`,
  duplicatePerNameSet: (max) => `${max} certificates for the same set of names per 7 days`,
  failedValidationsPerHostname: (max) => `${max} failed validations per hostname per hour`,
  ordersPerAccount: (max) => `${max} new orders per account per 3 hours`,
};

const WHOSE: Record<LimitsSource, string> = {
  letsencrypt: "Let's Encrypt's",
  'letsencrypt-staging': "Let's Encrypt staging's",
  setting: 'the configured (certLimits)',
};

/** The refusal's text: the limit, the count and when the next slot frees. */
export function describeRefusal(count: LimitCount, source: LimitsSource): string {
  const when = count.nextFreeAt ?? 'now';
  return `rate limit reached: ${WHOSE[source]} limit of ${DESCRIPTIONS[count.limit](count.max ?? 0)} (${count.limit}); ${count.key} has ${count.count}; the next slot frees at ${when}`;
}
