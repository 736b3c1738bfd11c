// The four counts as sliding windows over the ledger, each with the time its next slot frees, and the
// limits in force for each ACME server.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { countAll, wouldExceed, type CountedOrder } from '../../../../lib/certs/limits/counts.ts';
import { limitsFor } from '../../../../lib/certs/limits/defaults.ts';
import { loadPublicSuffixList } from '../../../../lib/certs/limits/registered-domain.ts';
import { ManualClock } from '../../../helpers/manual-clock.ts';

const s = suite('certificate limits: counts, windows and limits in force');
s.before(() => loadPublicSuffixList());
const LE = 'https://acme-v02.api.letsencrypt.org/directory';
const HOUR = 3600_000;
const DAY = 24 * HOUR;
const iso = (ms: number) => new Date(ms).toISOString();

function ledger(clock: ManualClock) {
  const orders: CountedOrder[] = [];
  const add = (names: string[], o: Partial<CountedOrder> = {}) => orders.push({ at: iso(clock.now()), server: LE, names, kind: 'new', outcome: 'issued', failedValidations: [], ...o });
  return { orders, add };
}

s("Let's Encrypt production and staging have their published numbers; pebble or another CA none; the sandbox none; the setting replaces a field", () => {
  assert.equal(limitsFor(LE, undefined).limits, { newPerRegisteredDomain: 50, duplicatePerNameSet: 5, failedValidationsPerHostname: 5, ordersPerAccount: 300 });
  assert.equal(limitsFor('https://acme-staging-v02.api.letsencrypt.org/directory', undefined), { source: 'letsencrypt-staging', limits: { newPerRegisteredDomain: 30_000, duplicatePerNameSet: 30_000, failedValidationsPerHostname: 60, ordersPerAccount: 1_500 } });
  assert.equal(limitsFor('https://localhost:14000/dir', undefined), { source: 'setting', limits: { newPerRegisteredDomain: null, duplicatePerNameSet: null, failedValidationsPerHostname: null, ordersPerAccount: null } });
  assert.is(limitsFor(LE, undefined, 'sandbox').limits.newPerRegisteredDomain, null);
  assert.equal(limitsFor('https://localhost:14000/dir', { newPerRegisteredDomain: 3 }).limits.newPerRegisteredDomain, 3);
  assert.equal(limitsFor(LE, { newPerRegisteredDomain: 100, ordersPerAccount: null }).limits, { newPerRegisteredDomain: 100, duplicatePerNameSet: 5, failedValidationsPerHostname: 5, ordersPerAccount: null });
});

s('new certificates per registered domain: a week of orders, the next slot frees when the oldest counted leaves the window', () => {
  const clock = new ManualClock();
  const { orders, add } = ledger(clock);
  const limits = { newPerRegisteredDomain: 3, duplicatePerNameSet: null, failedValidationsPerHostname: null, ordersPerAccount: null };
  const first = clock.now();
  add(['a.example.co.uk']);
  clock.advance(DAY);
  add(['b.example.co.uk']);
  add(['c.other.co.uk']);
  clock.advance(DAY);
  assert.is(wouldExceed(orders, LE, limits, clock.now(), { names: ['d.example.co.uk'], kind: 'new' }), null, 'two of three');
  add(['d.example.co.uk']);
  const refused = wouldExceed(orders, LE, limits, clock.now(), { names: ['e.example.co.uk'], kind: 'new' });
  assert.equal(refused, { limit: 'newPerRegisteredDomain', key: 'example.co.uk', count: 3, max: 3, windowSeconds: 7 * 24 * 3600, nextFreeAt: iso(first + 7 * DAY) });
  assert.is(wouldExceed(orders, LE, limits, clock.now(), { names: ['x.other.co.uk'], kind: 'new' }), null, 'another registered domain has its own count');
  assert.is(wouldExceed(orders, LE, limits, clock.now(), { names: ['a.example.co.uk'], kind: 'renewal' }), null, 'renewals are exempt');
  clock.advance(first + 7 * DAY - clock.now() - 1);
  assert.ok(wouldExceed(orders, LE, limits, clock.now(), { names: ['e.example.co.uk'], kind: 'new' }), 'a millisecond before the slot frees');
  clock.advance(1);
  assert.is(wouldExceed(orders, LE, limits, clock.now(), { names: ['e.example.co.uk'], kind: 'new' }), null, 'the oldest has left the window');
});

s('duplicates per exact name set (issued only, renewals too); orders per account (failed ones too) over 3 hours', () => {
  const clock = new ManualClock();
  const { orders, add } = ledger(clock);
  const limits = { newPerRegisteredDomain: null, duplicatePerNameSet: 2, failedValidationsPerHostname: null, ordersPerAccount: 4 };
  add(['app.example.com']);
  add(['APP.example.com'], { kind: 'renewal' });
  add(['app.example.com'], { outcome: 'failed' });
  assert.equal(wouldExceed(orders, LE, limits, clock.now(), { names: ['app.example.com'], kind: 'renewal' })?.limit, 'duplicatePerNameSet');
  assert.is(wouldExceed(orders, LE, limits, clock.now(), { names: ['other.example.com'], kind: 'new' }), null);
  const start = clock.now();
  clock.advance(HOUR);
  add(['other.example.com'], { outcome: 'failed' });
  const orderCount = wouldExceed(orders, LE, limits, clock.now(), { names: ['third.example.com'], kind: 'new' });
  assert.equal([orderCount?.limit, orderCount?.count, orderCount?.nextFreeAt], ['ordersPerAccount', 4, iso(start + 3 * HOUR)]);
  assert.is(wouldExceed(orders, 'https://another-ca.test/dir', limits, clock.now(), { names: ['third.example.com'], kind: 'new' }), null, "another server's account counts apart");
  clock.advance(2 * HOUR);
  assert.equal(wouldExceed(orders, LE, limits, clock.now(), { names: ['third.example.com'], kind: 'new' }), null);
});

s('failed validations per hostname over one hour', () => {
  const clock = new ManualClock();
  const { orders, add } = ledger(clock);
  const limits = { newPerRegisteredDomain: null, duplicatePerNameSet: null, failedValidationsPerHostname: 2, ordersPerAccount: null };
  add(['app.example.com'], { outcome: 'failed', failedValidations: ['app.example.com'] });
  clock.advance(10 * 60_000);
  add(['app.example.com'], { outcome: 'failed', failedValidations: ['app.example.com'] });
  const refused = wouldExceed(orders, LE, limits, clock.now(), { names: ['app.example.com'], kind: 'new' });
  assert.equal([refused?.limit, refused?.key, refused?.count, refused?.nextFreeAt], ['failedValidationsPerHostname', 'app.example.com', 2, iso(clock.now() - 10 * 60_000 + HOUR)]);
  clock.advance(50 * 60_000);
  assert.is(wouldExceed(orders, LE, limits, clock.now(), { names: ['app.example.com'], kind: 'new' }), null);
});

s('countAll: every key in its window, the box domain and the account even at zero, nextFreeAt null while a slot is free', () => {
  const clock = new ManualClock();
  const { orders, add } = ledger(clock);
  const limits = limitsFor(LE, undefined).limits;
  add(['a.example.com']);
  add(['a.example.com'], { outcome: 'failed', failedValidations: ['a.example.com'] });
  clock.advance(8 * DAY);
  add(['b.example.com']);
  const counts = countAll(orders, LE, limits, clock.now(), ['relay.example.org']);
  assert.equal(counts.map((c) => [c.limit, c.key, c.count, c.max, c.nextFreeAt]), [
    ['newPerRegisteredDomain', 'example.com', 1, 50, null],
    ['newPerRegisteredDomain', 'example.org', 0, 50, null],
    ['duplicatePerNameSet', 'b.example.com', 1, 5, null],
    ['ordersPerAccount', LE, 1, 300, null],
  ]);
});

s.run();
