// cert.limit_near: once when a weekly count reaches 80 % of its limit, again only after it fell below.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { NearLimitAlert } from '../../../lib/alerts/cert-limit-watch.ts';
import type { LimitCount } from '../../../lib/certs/limits/schema.ts';
import { createTestApp } from '../../../lib/testing.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';

const s = suite('certificate limits: the cert.limit_near alert');
const DAY = 24 * 3600_000;

function recorder() {
  const sent: Array<{ event: string; data: Record<string, unknown> }> = [];
  return { sent, alerts: { emit: (event: string, data: Record<string, unknown>) => void sent.push({ event, data }) } };
}
const count = (limit: LimitCount['limit'], n: number, max: number | null): LimitCount => ({ limit, key: 'example.com', count: n, max, windowSeconds: 604800, nextFreeAt: null });

s('at 40 of 50 new certificates (not at 39), once; armed again below; duplicates too; the hourly limits and unlimited counts never', () => {
  const r = recorder();
  const watch = new NearLimitAlert(r.alerts as never);
  watch.observe([count('newPerRegisteredDomain', 39, 50)]);
  assert.is(r.sent.length, 0);
  watch.observe([count('newPerRegisteredDomain', 40, 50)]);
  watch.observe([count('newPerRegisteredDomain', 45, 50)]);
  assert.equal(r.sent, [{ event: 'cert.limit_near', data: { limit: 'newPerRegisteredDomain', key: 'example.com', count: 40, max: 50, percent: 80, nextFreeAt: null } }]);
  watch.observe([count('newPerRegisteredDomain', 12, 50)]);
  watch.observe([count('newPerRegisteredDomain', 41, 50)]);
  assert.is(r.sent.length, 2, 'again after falling below');
  watch.observe([count('duplicatePerNameSet', 4, 5), count('failedValidationsPerHostname', 5, 5), count('ordersPerAccount', 300, 300), count('newPerRegisteredDomain', 1000, null)]);
  assert.equal(r.sent.slice(2).map((x) => x.data.limit), ['duplicatePerNameSet']);
});

s('in the running panel: the 4th new certificate of a 5-a-week domain sends it to a subscribed webhook, the 3rd does not', async () => {
  const clock = new ManualClock();
  const t = await createTestApp({ clock, config: { certLimits: { newPerRegisteredDomain: 5 } } });
  const sent: Array<[string, Record<string, unknown>]> = [];
  t.services.alerts.emit = (event, data) => void sent.push([event, data]);
  try {
    await t.completeOnboarding('example.com');
    for (const [i, name] of ['a', 'b', 'c'].entries()) assert.is((await t.call('POST', '/api/tunnels', { body: { subdomain: name, port: 9000 + i } })).status, 201);
    assert.equal(sent, []);
    // jump: the alert comes from the order's count, not from a timer (advance ran the 5 s polls 40,000 times)
    clock.jump(DAY);
    assert.is((await t.call('POST', '/api/tunnels', { body: { subdomain: 'd', port: 9010 } })).status, 201);
    assert.equal(sent, [['cert.limit_near', { limit: 'newPerRegisteredDomain', key: 'example.com', count: 4, max: 5, percent: 80, nextFreeAt: null }]]);
  } finally {
    await t.close();
  }
});

s('a timer renewal that crosses 80 % sends it once, found by the hourly check (no order of the panel needed)', async () => {
  const clock = new ManualClock();
  const t = await createTestApp({ clock, config: { certLimits: { duplicatePerNameSet: 5 } } });
  const sent: Array<[string, Record<string, unknown>]> = [];
  // the other checks run on the advanced clock's ticks too: their events are not this test's
  t.services.alerts.emit = (event, data) => void (event === 'cert.limit_near' && sent.push([event, data]));
  // a webhook asks for the event: the check runs only then
  t.services.alerts.subscribers = () => [{}] as never;
  try {
    await t.completeOnboarding('example.com');
    const fqdn = 'app.example.com';
    assert.is((await t.call('POST', '/api/tunnels', { body: { subdomain: 'app', port: 9001 } })).status, 201);
    // certbot renew run by the timer: the unguarded adapter, nothing in the ledger
    for (const _ of [1, 2]) {
      clock.jump(DAY);
      await t.services.system.certs.renew(fqdn);
    }
    await t.services.alertWatch.checkCertLimits();
    assert.equal(sent, [], '3 of 5: under 80 %');
    clock.jump(DAY);
    await t.services.system.certs.renew(fqdn);
    await t.services.alertWatch.checkCertLimits();
    assert.equal(sent, [['cert.limit_near', { limit: 'duplicatePerNameSet', key: fqdn, count: 4, max: 5, percent: 80, nextFreeAt: null }]]);
    await t.services.alertWatch.checkCertLimits();
    assert.is((await t.call('GET', '/api/certs/limits')).status, 200);
    assert.is(sent.length, 1, 'once: read again, nothing new');
  } finally {
    await t.close();
  }
});

s.run();
