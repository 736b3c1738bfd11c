// A webhook may not point inward unless the admin allows private targets. Each spelling
// of loopback, link-local, private, unspecified, multicast/broadcast and their IPv4-mapped forms is
// a 400 at create and update that says why; GET/PATCH /api/alerts/settings turn private targets on,
// which still leaves the never-allowed ranges refused; turned off again, a saved loopback webhook is
// refused at delivery. Nothing leaves the machine: refused URLs are refused before any connection.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestApp, type TestApp } from '../../../lib/testing.ts';
import { startReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.ts';

const s = suite('alerts: webhook targets and the private-targets setting');
let t: TestApp;
let receiver: WebhookReceiver;
s.before.each(async () => {
  t = await createTestApp();
  await t.completeOnboarding();
  receiver = await startReceiver();
});
s.after.each(async () => {
  await t.close();
  await receiver.close();
});

/** url -> what the 400's `url` issue must say */
const PRIVATE: Record<string, RegExp> = {
  'http://127.0.0.1:8080/hook': /a loopback address \(127\.0\.0\.1\), and private targets are off/,
  'http://[::1]/hook': /a loopback address \(::1\)/,
  'http://localhost:3000/hook': /the local machine \(localhost\)/,
  'http://2130706433/hook': /a loopback address \(127\.0\.0\.1\)/,
  'http://0x7f.1/hook': /a loopback address \(127\.0\.0\.1\)/,
  'http://127.1/hook': /a loopback address \(127\.0\.0\.1\)/,
  'http://[::ffff:127.0.0.1]/hook': /an IPv4-mapped loopback address/,
  'http://10.0.0.1/hook': /a private \(RFC 1918\) address/,
  'http://172.16.5.4/hook': /a private \(RFC 1918\) address/,
  'http://192.168.1.1/hook': /a private \(RFC 1918\) address/,
  'http://[::ffff:192.168.1.1]/hook': /an IPv4-mapped private \(RFC 1918\) address/,
  'http://100.64.0.1/hook': /a shared \(CGNAT, 100\.64\.0\.0\/10\) address/,
  'http://[fd12:3456::1]/hook': /a unique local \(fc00::\/7\) address/,
  'http://intranet/hook': /a single-label name/,
  'http://printer.local/hook': /a \.local name/,
  'https://panel.example.test/hook': /this relay box \(panel\.example\.test\)/,
};
const NEVER: Record<string, RegExp> = {
  'http://169.254.169.254/latest/meta-data/': /a link-local address \(169\.254\.169\.254\), which a webhook may never target/,
  'http://[fe80::1]/hook': /a link-local address/,
  'http://0.0.0.0:8080/hook': /the unspecified address \(0\.0\.0\.0\)/,
  'http://[::]/hook': /the unspecified address \(::\)/,
  'http://224.0.0.1/hook': /a multicast address/,
  'http://[ff02::1]/hook': /a multicast address/,
  'http://255.255.255.255/hook': /the broadcast address/,
  'http://[::ffff:169.254.169.254]/hook': /an IPv4-mapped link-local address/,
  'http://[::127.0.0.1]/hook': /a deprecated IPv4-compatible address/,
  'http://metadata.google.internal/computeMetadata/v1/': /a cloud metadata service/,
  'http://[fd00:ec2::254]/hook': /a cloud metadata service/,
};

// disabled, and for an event nothing here raises: a URL taken (allowed, or by a regression) is never sent to
const create = (url: string) => t.call('POST', '/api/alerts/webhooks', { body: { url, events: ['agent.revoked'], enabled: false } });

function assertRefused(r: { status: number; body: any }, url: string, why: RegExp): void {
  assert.equal([r.status, r.body.error], [400, 'Validation failed'], `${url}: ${JSON.stringify(r.body)}`);
  assert.equal(r.body.details.issues.map((i: { path: string }) => i.path), ['url'], url);
  assert.match(r.body.details.issues[0].message, why, url);
}

s('by default every inward form is 400 at create, saying why; nothing is stored; a public name is taken', async () => {
  assert.equal((await t.call('GET', '/api/alerts/settings')).body, { allowPrivateTargets: false });
  for (const [url, why] of Object.entries({ ...PRIVATE, ...NEVER })) assertRefused(await create(url), url, why);
  assert.equal(t.services.store.webhooks.value, []);
  // names are not resolved when saved: each delivery resolves and checks them (target-delivery.test.ts)
  assert.is((await create('https://hooks.example.com/relay')).status, 201);
});

s('PATCH of a webhook to an inward URL is the same 400, and leaves the webhook as it was', async () => {
  const made = (await create('https://hooks.example.com/relay')).body.webhook;
  for (const [url, why] of Object.entries({ 'http://2130706433/hook': PRIVATE['http://2130706433/hook']!, 'http://169.254.169.254/': /a link-local address/ })) {
    assertRefused(await t.call('PATCH', `/api/alerts/webhooks/${made.id}`, { body: { url } }), url, why);
  }
  assert.is(t.services.store.webhooks.get(made.id)!.url, 'https://hooks.example.com/relay');
});

s('allowing private targets: loopback and private networks are taken and delivered to; the never ranges stay 400', async () => {
  const turned = await t.call('PATCH', '/api/alerts/settings', { body: { allowPrivateTargets: true } });
  assert.equal([turned.status, turned.body], [200, { ok: true, settings: { allowPrivateTargets: true } }]);
  assert.equal(t.services.config.value.alerts, { allowPrivateTargets: true }, 'kept in the configuration');
  for (const url of Object.keys(PRIVATE)) assert.is((await create(url)).status, 201, url);
  for (const [url, why] of Object.entries(NEVER)) assertRefused(await create(url), url, why);
  const hook = (await create(receiver.url)).body.webhook;
  await t.call('POST', `/api/alerts/webhooks/${hook.id}/test`);
  await receiver.waitFor(1);
  await t.services.alerts.dispatcher.settled();
  assert.equal(t.services.alerts.deliveries()[0]!.state, 'delivered');
});

s('turned off again, a saved loopback webhook stays but its deliveries are refused, and the receiver gets nothing', async () => {
  await t.call('PATCH', '/api/alerts/settings', { body: { allowPrivateTargets: true } });
  const hook = (await create(receiver.url)).body.webhook;
  assert.equal((await t.call('PATCH', '/api/alerts/settings', { body: { allowPrivateTargets: false } })).body.settings, { allowPrivateTargets: false });
  const answered = await t.call('POST', `/api/alerts/webhooks/${hook.id}/test`);
  assert.is(answered.status, 200);
  assert.equal([answered.body.delivery.state, answered.body.delivery.error], ['pending', 'refused: private address'], 'the answer says why');
  const [logged] = (await t.call('GET', '/api/alerts/deliveries')).body.deliveries;
  assert.equal([logged.state, logged.error, logged.statusCode], ['pending', 'refused: private address', null]);
  assert.is(receiver.received.length, 0);
  assert.equal((await t.call('GET', '/api/alerts/webhooks')).body.webhooks.map((w: { id: string }) => w.id), [hook.id]);
});

s('the setting: admin only, a boolean, and described in the API document with the new 400', async () => {
  await t.addAgent('bot', ['tunnels:read']);
  assert.is((await t.call('GET', '/api/alerts/settings', { as: { agent: 'bot' } })).status, 403);
  assert.is((await t.call('PATCH', '/api/alerts/settings', { as: { agent: 'bot' }, body: { allowPrivateTargets: true } })).status, 403);
  assert.is((await t.call('PATCH', '/api/alerts/settings', { body: { allowPrivateTargets: 'yes' } })).status, 400);
  assert.is((await t.call('PATCH', '/api/alerts/settings', { body: {} })).status, 400);
  assert.equal(t.services.config.value.alerts, { allowPrivateTargets: false });
  const paths = (await t.call('GET', '/api/openapi.json')).body.paths;
  assert.ok(paths['/api/alerts/settings'].get && paths['/api/alerts/settings'].patch);
  for (const operation of [paths['/api/alerts/webhooks'].post, paths['/api/alerts/webhooks/{id}'].patch]) {
    assert.match(operation.responses['400'].description, /Validation failed.*`url` issue saying why.*PATCH \/api\/alerts\/settings/);
  }
});

s.run();
