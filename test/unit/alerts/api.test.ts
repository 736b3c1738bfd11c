// /api/alerts in the sandbox app: webhooks made, changed, listed without their secret, stored 0600;
// and alerts reaching a receiver on loopback: a test, a tunnel down and back up (a listener on
// 127.0.0.1 plays the client), a service stopped, a forced renewal failed, an agent revoked.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sandboxControls } from '../../../lib/system/sandbox-system.ts';
import { MAX_WEBHOOKS } from '../../../lib/alerts/schema.ts';
import { TICK_MS } from '../../../lib/alerts/watch.ts';
import { createTestApp, type TestApp } from '../../../lib/testing.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';
import { storedText } from '../../helpers/store-files.ts';
import { expectedSignature, startReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.ts';

const SECRET = 'receiver-shared-secret-123';
const s = suite('alerts: the API and alerts end to end');
let t: TestApp;
let clock: ManualClock;
let receiver: WebhookReceiver;
s.before.each(async () => {
  clock = new ManualClock(Date.now());
  // the receivers listen on loopback: a private target, which only the admin's setting allows (targets.test.ts)
  t = await createTestApp({ clock, durable: true, config: { alerts: { allowPrivateTargets: true } } });
  await t.completeOnboarding();
  receiver = await startReceiver();
});
s.after.each(async () => {
  await t.close();
  await receiver.close();
});

const hook = (body: Record<string, unknown> = {}) => t.call('POST', '/api/alerts/webhooks', { body: { url: receiver.url, secret: SECRET, events: ['tunnel.down', 'tunnel.up'], ...body } });
/** Runs the alert checks that are due and waits for what they send. */
async function tick(times = 1): Promise<void> {
  for (let i = 0; i < times; i++) {
    clock.advance(TICK_MS);
    await t.services.alertWatch.idle();
    await t.services.alerts.dispatcher.settled();
  }
}
const events = () => receiver.received.map((r) => r.json.event);

s('POST makes a webhook (a secret made when none is given, shown once); GET never shows it; the file is 0600', async () => {
  const made = await t.call('POST', '/api/alerts/webhooks', { body: { url: receiver.url, events: ['disk.low'] } });
  assert.is(made.status, 201, JSON.stringify(made.body));
  assert.match(made.body.secret, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(Object.keys(made.body.webhook).sort(), ['createdAt', 'enabled', 'events', 'id', 'tunnelDownMinutes', 'url']);
  assert.equal([made.body.webhook.enabled, made.body.webhook.tunnelDownMinutes], [true, 5]);
  const listed = await t.call('GET', '/api/alerts/webhooks');
  assert.equal(listed.body, { webhooks: [made.body.webhook] });
  assert.not.match(JSON.stringify(listed.body), made.body.secret);
  const webhooks = t.services.store.webhooks;
  assert.match(await storedText(webhooks), made.body.secret);
  for (const name of (await readdir(t.dir)).filter((n) => n.startsWith('webhooks.'))) assert.is((await stat(join(t.dir, name))).mode & 0o777, 0o600, name);
});

s('bad input: 400 with the reason; an unknown id 404; the 21st webhook 409; agents 403', async () => {
  // the spec's 400 Validation failed, with the field and the reason in details.issues
  const bad = async (body: Record<string, unknown>, path: string, message: RegExp) => {
    const r = await hook(body);
    assert.equal([r.status, r.body.error], [400, 'Validation failed'], JSON.stringify(body));
    assert.ok(r.body.details.issues.some((i: { path: string; message: string }) => i.path === path && message.test(i.message)), JSON.stringify(r.body));
  };
  await bad({ url: 'ftp://example.test/x' }, 'url', /must be an http or https URL without credentials/);
  await bad({ url: 'https://user:pw@example.test/x' }, 'url', /must be an http or https URL without credentials/);
  await bad({ events: [] }, 'events', /must name at least one event/);
  await bad({ events: ['tunnel.sideways'] }, 'events.0', /./);
  await bad({ secret: 'short' }, 'secret', /must be at least 16 characters/);
  await bad({ tunnelDownMinutes: 0 }, 'tunnelDownMinutes', /./);
  assert.equal(t.services.store.webhooks.value, [], 'nothing stored');
  // ids are UUIDs: one that names nothing is 404, anything else 400
  const unknown = '7d8a3c1e-2b4f-4a6d-9e0f-1a2b3c4d5e6f';
  for (const method of ['PATCH', 'DELETE'] as const) {
    const r = await t.call(method, `/api/alerts/webhooks/${unknown}`, method === 'PATCH' ? { body: { enabled: false } } : {});
    assert.equal([r.status, r.body], [404, { error: 'Webhook not found' }]);
    assert.is((await t.call(method, '/api/alerts/webhooks/nope', method === 'PATCH' ? { body: { enabled: false } } : {})).status, 400);
  }
  assert.equal((await t.call('POST', `/api/alerts/webhooks/${unknown}/test`)).status, 404);
  assert.equal((await t.call('POST', '/api/alerts/webhooks/nope/test')).status, 400);
  for (let i = 0; i < MAX_WEBHOOKS; i++) assert.is((await hook()).status, 201);
  assert.equal([(await hook()).status, (await hook()).body], [409, { error: `At most ${MAX_WEBHOOKS} webhooks` }]);
  await t.addAgent('bot', ['tunnels:read', 'sites:read']);
  for (const [method, path] of [['GET', '/api/alerts/webhooks'], ['GET', '/api/alerts/deliveries'], ['POST', '/api/alerts/webhooks']] as const) {
    assert.is((await t.call(method, path, { as: { agent: 'bot' }, body: method === 'POST' ? { url: receiver.url, events: ['disk.low'] } : undefined })).status, 403, path);
  }
});

s('PATCH changes events, minutes, secret and enabled; DELETE removes it', async () => {
  const { webhook } = (await hook()).body;
  const patched = await t.call('PATCH', `/api/alerts/webhooks/${webhook.id}`, { body: { events: ['agent.revoked'], tunnelDownMinutes: 30, enabled: false, secret: 'a-brand-new-secret-value' } });
  assert.is(patched.status, 200, JSON.stringify(patched.body));
  assert.equal([patched.body.webhook.events, patched.body.webhook.tunnelDownMinutes, patched.body.webhook.enabled], [['agent.revoked'], 30, false]);
  assert.is(t.services.store.webhooks.get(webhook.id)!.secret, 'a-brand-new-secret-value');
  assert.equal((await t.call('DELETE', `/api/alerts/webhooks/${webhook.id}`)).body, { ok: true });
  assert.equal((await t.call('GET', '/api/alerts/webhooks')).body, { webhooks: [] });
});

s('POST .../test: answered once the attempt ended, delivered with the receiver\'s 200; a signed `test` alert arrived; the log agrees', async () => {
  const { webhook } = (await hook()).body;
  const queued = await t.call('POST', `/api/alerts/webhooks/${webhook.id}/test`);
  assert.is(queued.status, 200);
  // no waiting here: the answer came after the receiver's (the page showed "sending" for seconds)
  assert.equal([queued.body.delivery.state, queued.body.delivery.statusCode, queued.body.delivery.attempts], ['delivered', 200, 1]);
  assert.is(receiver.received.length, 1);
  const [got] = receiver.received;
  assert.is(got!.json.event, 'test');
  assert.is(got!.json.id, queued.body.delivery.id);
  assert.is(got!.json.box, 'example.test');
  assert.is(got!.headers['x-relay-signature'], expectedSignature(SECRET, got!.body));
  const log = await t.call('GET', '/api/alerts/deliveries');
  assert.equal([log.body.deliveries[0].id, log.body.deliveries[0].state, log.body.deliveries[0].statusCode, log.body.deliveries[0].webhookId], [queued.body.delivery.id, 'delivered', 200, webhook.id]);
});

s('POST .../test to a receiver that fails: answered after the one attempt, `pending` with the reason and the next try, not after the retries', async () => {
  receiver.answer = () => 500;
  const { webhook } = (await hook()).body;
  const answered = await t.call('POST', `/api/alerts/webhooks/${webhook.id}/test`);
  assert.is(answered.status, 200);
  const { delivery } = answered.body;
  assert.equal([delivery.state, delivery.statusCode, delivery.error, delivery.attempts], ['pending', 500, 'HTTP 500', 1]);
  assert.is(Date.parse(delivery.nextAttemptAt) - clock.now(), 10_000, 'the first retry is 10 s away, and nobody waited for it');
});

s('a tunnel whose client is gone for tunnelDownMinutes: tunnel.down; the client back: tunnel.up', async () => {
  // chisel's listener on the tunnel's port, in the kit's socket table: the client's session
  const port = 41001;
  let release = t.sockets!.hold('tcp', port);
  assert.is((await t.call('POST', '/api/tunnels', { body: { subdomain: 'app', port } })).status, 201);
  await hook({ tunnelDownMinutes: 1 });
  await tick();
  release();
  await tick(2);
  assert.equal(events(), [], 'gone for 30 s only');
  await tick();
  assert.equal(events(), ['tunnel.down']);
  assert.equal(receiver.received[0]!.json.data.tunnel, { id: receiver.received[0]!.json.data.tunnel.id, subdomain: 'app', port });
  await tick(2);
  assert.equal(events(), ['tunnel.down'], 'once');
  release = t.sockets!.hold('tcp', port);
  await tick();
  assert.equal(events(), ['tunnel.down', 'tunnel.up']);
  // first seen gone at the second check (60 s), back at 210 s: 2.5 minutes
  assert.is(receiver.received[1]!.json.data.downMinutes, 3);
  release();
});

s('a service stopped, a forced renewal failed, an agent revoked: one alert each; a disabled webhook gets none', async () => {
  await hook({ events: ['service.inactive', 'cert.renewal_failed', 'agent.revoked'] });
  const off = await startReceiver();
  try {
    await t.call('POST', '/api/alerts/webhooks', { body: { url: off.url, events: ['service.inactive', 'cert.renewal_failed', 'agent.revoked'], enabled: false } });
    const sandbox = sandboxControls(t.services.system);
    for (const name of ['proxy', 'tunnel-server', 'auth-portal'] as const) sandbox.setServiceStatus(name, 'active');
    await tick(2);
    sandbox.setServiceStatus('tunnel-server', 'failed');
    await tick(2);
    await t.addAgent('bot', ['tunnels:read']);
    assert.is((await t.call('DELETE', '/api/certs/agent/bot')).status, 200);
    // later changes of the agents (another issued) do not tell of the revoked one again
    await t.addAgent('bot-2', ['tunnels:read']);
    await t.services.system.certs.issue('panel.example.test', 'ops@example.test');
    sandbox.failNext('certs.renew', 'certbot could not renew panel.example.test: boom');
    assert.is((await t.call('POST', '/api/certs/panel.example.test/renew')).status, 500);
    await receiver.waitFor(3);
    await t.services.alerts.dispatcher.settled();
    // a renewal that worked, whose nginx reload then failed, is nginx's failure: no renewal alert
    sandbox.failNext('proxy.reload', 'nginx reload failed: boom');
    assert.is((await t.call('POST', '/api/certs/panel.example.test/renew')).status, 500);
    await t.services.alerts.dispatcher.settled();
    assert.equal(events().sort(), ['agent.revoked', 'cert.renewal_failed', 'service.inactive']);
    const data = Object.fromEntries(receiver.received.map((r) => [r.json.event, r.json.data]));
    assert.equal(data['service.inactive'], { service: 'tunnel-server', status: 'failed' });
    assert.equal(data['cert.renewal_failed'], { name: 'panel.example.test', reason: 'certbot could not renew panel.example.test: boom' });
    assert.equal([data['agent.revoked'].label, typeof data['agent.revoked'].revokedAt], ['bot', 'string']);
    assert.is(off.received.length, 0);
  } finally {
    await off.close();
  }
});

s('certificates and the disk are read only while a webhook asks for their events; an expiring certificate and a low disk reach it once each', async () => {
  await t.services.system.certs.issue('panel.example.test', 'ops@example.test');
  const [issued] = await t.services.letsEncrypt.list();
  const soon = { ...issued!, daysLeft: 10 };
  let certReads = 0;
  let diskReads = 0;
  t.services.letsEncrypt.list = async () => (certReads++, [soon]);
  const stats = t.services.system.stats;
  const snapshot = stats.snapshot.bind(stats);
  stats.snapshot = async () => {
    diskReads++;
    return { ...(await snapshot()), disk: { total: 100 * 2 ** 30, used: 95 * 2 ** 30, free: 5 * 2 ** 30 } };
  };
  await hook({ events: ['tunnel.down'] });
  await tick(2);
  assert.equal([certReads, diskReads], [0, 0], 'nobody asked for them');
  await hook({ events: ['cert.expiring', 'disk.low'] });
  await tick(1);
  assert.equal([certReads, diskReads], [1, 1]);
  // the next reads wait for their own schedules (hourly, every 5 minutes) and tell nothing twice
  for (let i = 0; i < 12; i++) await tick(1);
  assert.ok(diskReads >= 2 && certReads === 1, `disk ${diskReads}, certificates ${certReads}`);
  for (let i = 0; i < 110; i++) await tick(1);
  assert.ok(certReads >= 2, `certificates ${certReads}`);
  assert.equal(events().sort(), ['cert.expiring', 'disk.low']);
  const data = Object.fromEntries(receiver.received.map((r) => [r.json.event, r.json.data]));
  assert.equal([data['cert.expiring'].name, data['cert.expiring'].daysLeft], ['panel.example.test', 10]);
  assert.equal(data['disk.low'].freePercent, 5);
});

s.run();
