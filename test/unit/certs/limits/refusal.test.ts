// A create whose certificate would pass a limit is refused before certbot runs: the spec's 500
// with details naming the limit, the count and when the next slot frees, and nothing left behind.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { CertLimitsSetting } from '../../../../lib/certs/limits/schema.ts';
import { sandboxControls, type SandboxControls } from '../../../../lib/system/sandbox-system.ts';
import { createTestApp, type TestApp } from '../../../../lib/testing.ts';
import { ManualClock } from '../../../helpers/manual-clock.ts';

const DOMAIN = 'relay.co.uk';
const DAY = 24 * 3600_000;

async function app(certLimits: CertLimitsSetting, clock = new ManualClock()) {
  const t = await createTestApp({ clock, config: { certLimits } });
  await t.completeOnboarding(DOMAIN);
  return { t, clock, sb: sandboxControls(t.services.system) };
}
const tunnel = (t: TestApp, subdomain: string, port: number) => t.call('POST', '/api/tunnels', { body: { subdomain, port } });
const site = (t: TestApp, name: string) => t.call('POST', '/api/sites', { body: { name, type: 'managed' } });
const issues = (sb: SandboxControls) => sb.eventsOf('certs.issue').length;

const s = suite('certificate limits: refused before certbot runs');

s('the third new certificate under relay.co.uk with a limit of 2: 500 Failed to create tunnel naming the limit, the count and when it frees; no certbot run, no record, no vhost', async () => {
  const { t, clock, sb } = await app({ newPerRegisteredDomain: 2 });
  try {
    const first = clock.now();
    assert.is((await tunnel(t, 'one', 9001)).status, 201);
    // jump, not advance: the counts are read at each order, not by a timer, and advancing days ran
    // the panel's 5 s polls and minute tasks hundreds of thousands of times
    clock.jump(DAY);
    assert.is((await site(t, 'two')).status, 201);
    const before = { issues: issues(sb), vhosts: sb.eventsOf('proxy.apply').length };
    const refused = await tunnel(t, 'three', 9003);
    assert.is(refused.status, 500);
    assert.is(refused.body.error, 'Failed to create tunnel');
    assert.match(refused.body.details, /^Certificate issuance failed: /);
    assert.match(refused.body.details, /2 new certificates per registered domain per 7 days \(newPerRegisteredDomain\)/);
    assert.match(refused.body.details, /relay\.co\.uk has 2/);
    assert.ok(refused.body.details.includes(`the next slot frees at ${new Date(first + 7 * DAY).toISOString()}`), refused.body.details);
    assert.equal({ issues: issues(sb), vhosts: sb.eventsOf('proxy.apply').length }, before, 'certbot never ran and no vhost was written');
    assert.equal(t.services.store.tunnels.value.map((x) => x.subdomain), ['one']);
    assert.not.ok(await t.services.system.certs.has(`three.${DOMAIN}`));
    const siteRefused = await site(t, 'four');
    assert.equal([siteRefused.status, siteRefused.body.error], [500, 'Failed to create site']);
    assert.match(siteRefused.body.details, /newPerRegisteredDomain/);
    assert.equal(t.services.store.sites.value.map((x) => x.name), ['two']);
    // the name is free again: a retry once the slot frees succeeds
    clock.jump(first + 7 * DAY - clock.now());
    assert.is((await tunnel(t, 'three', 9003)).status, 201);
  } finally {
    await t.close();
  }
});

s('a certificate already in place orders nothing: a tunnel recreated under its old name is not counted or refused', async () => {
  const { t, sb } = await app({ newPerRegisteredDomain: 1 });
  try {
    const made = await tunnel(t, 'app', 9001);
    assert.is((await t.call('DELETE', `/api/tunnels/${made.body.tunnel.id}`)).status, 200);
    assert.is((await tunnel(t, 'app', 9001)).status, 201);
    assert.is(issues(sb), 1);
    assert.is(t.services.store.certIssuances.value.length, 1);
  } finally {
    await t.close();
  }
});

s('two creates at once with one slot left: one is created, the other refused (an order under way counts)', async () => {
  const { t } = await app({ newPerRegisteredDomain: 1 });
  try {
    const answers = await Promise.all([tunnel(t, 'a', 9001), tunnel(t, 'b', 9002)]);
    assert.equal(answers.map((a) => a.status).sort(), [201, 500]);
    assert.is(t.services.store.tunnels.value.length, 1);
  } finally {
    await t.close();
  }
});

s('failed validations are counted per hostname: after the limit the name is refused for the hour, other names are not', async () => {
  const { t, clock, sb } = await app({ failedValidationsPerHostname: 2 });
  try {
    for (let i = 0; i < 2; i++) {
      sb.failNext('certs.issue', 'certbot could not issue app.relay.co.uk: Some challenges have failed. Type: unauthorized Detail: Invalid response from http://app.relay.co.uk/.well-known/acme-challenge/x: 404');
      const failed = await tunnel(t, 'app', 9001);
      assert.equal([failed.status, failed.body.error], [500, 'Failed to create tunnel']);
      assert.match(failed.body.details, /unauthorized/);
    }
    const before = issues(sb);
    const refused = await tunnel(t, 'app', 9001);
    assert.match(refused.body.details, /2 failed validations per hostname per hour \(failedValidationsPerHostname\); app\.relay\.co\.uk has 2/);
    assert.is(issues(sb), before);
    assert.is((await tunnel(t, 'web', 9002)).status, 201);
    clock.advance(3600_000);
    assert.is((await tunnel(t, 'app', 9001)).status, 201);
  } finally {
    await t.close();
  }
});

s('a forced renewal is counted as one (exempt from the per-domain limit, not from duplicates) and refused past the duplicate limit', async () => {
  const { t } = await app({ newPerRegisteredDomain: 1, duplicatePerNameSet: 2 });
  try {
    assert.is((await tunnel(t, 'app', 9001)).status, 201);
    const renewed = await t.call('POST', `/api/certs/app.${DOMAIN}/renew`);
    assert.is(renewed.status, 200, JSON.stringify(renewed.body));
    assert.equal(t.services.store.certIssuances.value.map((r) => [r.kind, r.outcome]), [['new', 'issued'], ['renewal', 'issued']]);
    const refused = await t.call('POST', `/api/certs/app.${DOMAIN}/renew`);
    assert.equal([refused.status, refused.body.error], [500, 'Certificate renewal failed']);
    assert.match(refused.body.details, /duplicatePerNameSet/);
  } finally {
    await t.close();
  }
});

s('without a setting the sandbox has no limits: many creates, all counted, none refused', async () => {
  const { t } = await app({});
  try {
    for (let i = 0; i < 8; i++) assert.is((await tunnel(t, `t${i}`, 9000 + i)).status, 201);
    const { body } = await t.call('GET', '/api/certs/limits');
    assert.equal(body.limits, { newPerRegisteredDomain: null, duplicatePerNameSet: null, failedValidationsPerHostname: null, ordersPerAccount: null });
    assert.equal(body.counts.find((c: { limit: string }) => c.limit === 'newPerRegisteredDomain'), { limit: 'newPerRegisteredDomain', key: DOMAIN, count: 8, max: null, windowSeconds: 604800, nextFreeAt: null });
  } finally {
    await t.close();
  }
});

s.run();
