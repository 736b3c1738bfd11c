// cert.expiring and cert.renewal_failed cover the wildcard lineage as any other: its listing (both
// names), the hourly check as it nears expiry, a timer renewal arming them again, and the panel's
// forced renewal failing.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { AlertEventName, WebhookRecord } from '../../../lib/state/schemas.ts';
import { sandboxControls } from '../../../lib/system/sandbox-system.ts';
import { createTestApp, type TestApp } from '../../../lib/testing.ts';
import type { Clock } from '../../../lib/clock.ts';

const DOMAIN = 'relay.example.com';
const DAY = 24 * 3600_000;
const SECRET = 'c2VjcmV0LWtleS1mb3ItdGVzdHM=';
const WILDCARD = { mode: 'wildcard', provider: 'rfc2136', credentials: { server: '127.0.0.1', port: 15353, name: 'certbot-key', secret: SECRET }, propagationSeconds: 0 };

interface Sent { event: AlertEventName; data: Record<string, unknown> }

/** Moved by months at a time, so nothing periodic runs: the checks below are called by hand. */
class JumpClock implements Clock {
  at = Date.parse('2026-11-22T00:00:00Z');
  now = () => this.at;
  every = () => () => {};
  advance(ms: number): void {
    this.at += ms;
  }
}

/** A wildcard box whose alerts are recorded, every certificate event subscribed. */
async function wildcardBox(): Promise<{ t: TestApp; clock: JumpClock; sent: Sent[] }> {
  const clock = new JumpClock();
  const t = await createTestApp({ clock });
  await t.completeOnboarding(DOMAIN);
  const put = await t.call('PUT', '/api/settings/certificates', { body: WILDCARD });
  assert.is(put.status, 200, JSON.stringify(put.body));
  const sent: Sent[] = [];
  const { alerts } = t.services;
  alerts.subscribers = (event) => (['cert.expiring', 'cert.renewal_failed'].includes(event) ? [{ id: 'w' } as WebhookRecord] : []);
  alerts.emit = (event, data) => void sent.push({ event, data });
  return { t, clock, sent };
}
/** The alerts about the wildcard lineage (the stack's own certificates age alongside it). */
const ofWildcard = (sent: Sent[]) => sent.filter((x) => x.data.name === DOMAIN);

const s = suite('alerts: the wildcard lineage');

s('not renewed at 28 days left, expiring under 14: each once, with both names; a renewal by the timer ends them', async () => {
  const { t, clock, sent } = await wildcardBox();
  try {
    const { expiresAt } = (await t.services.letsEncrypt.list()).find((c) => c.name === DOMAIN)!;
    await t.services.alertWatch.checkCerts();
    assert.equal(ofWildcard(sent), [], 'fresh: nothing');
    clock.advance(Date.parse(expiresAt) - clock.now() - 28 * DAY);
    await t.services.alertWatch.checkCerts();
    await t.services.alertWatch.checkCerts();
    assert.equal(ofWildcard(sent), [{ event: 'cert.renewal_failed', data: { name: DOMAIN, domains: [DOMAIN, `*.${DOMAIN}`], expiresAt, daysLeft: 28, reason: 'not renewed at 28 days left (certbot renews at 30)' } }]);
    clock.advance(15 * DAY);
    await t.services.alertWatch.checkCerts();
    assert.equal(ofWildcard(sent).map((x) => [x.event, x.data.daysLeft, x.data.domains]), [['cert.renewal_failed', 28, [DOMAIN, `*.${DOMAIN}`]], ['cert.expiring', 13, [DOMAIN, `*.${DOMAIN}`]]]);
    // certbot's timer renews it (outside the panel): the next check finds 90 days and sends nothing
    await t.services.system.certs.renew(DOMAIN);
    const renewed = (await t.services.letsEncrypt.list()).find((c) => c.name === DOMAIN)!;
    assert.equal(renewed.domains, [DOMAIN, `*.${DOMAIN}`], 'renewed with both names');
    await t.services.alertWatch.checkCerts();
    assert.is(ofWildcard(sent).length, 2);
  } finally {
    await t.close();
  }
});

s('a forced renewal of the wildcard lineage that fails: 500 Certificate renewal failed and cert.renewal_failed naming the lineage', async () => {
  const { t, sent } = await wildcardBox();
  try {
    sandboxControls(t.services.system).failNext('certs.renew', 'Encountered exception during recovery: dns_rfc2136 server refused the update (REFUSED)');
    const refused = await t.call('POST', `/api/certs/${DOMAIN}/renew`);
    assert.equal([refused.status, refused.body.error], [500, 'Certificate renewal failed']);
    assert.equal(ofWildcard(sent).map((x) => [x.event, x.data.name]), [['cert.renewal_failed', DOMAIN]]);
    assert.match(String(ofWildcard(sent)[0]!.data.reason), /REFUSED/);
  } finally {
    await t.close();
  }
});

s.run();
