// Alerts to a receiver on loopback: signed JSON POSTs, retries with backoff for an hour, and memory
// bounded whatever the receiver does (gone, failing, or taking requests and never answering).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AlertDispatcher, BACKOFF_MS, type DispatcherOptions, LOG_SIZE, MAX_IN_FLIGHT, MAX_PENDING } from '../../../lib/alerts/dispatcher.ts';
import { silentLogger } from '../../../lib/log.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';
import { unusedPort } from '../../helpers/loopback-listener.ts';
import { expectedSignature, startReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.ts';
import { withTimeout } from '../../helpers/timeout.ts';

const SECRET = 'a-secret-of-enough-length';
const s = suite('alerts: the dispatcher');
let clock: ManualClock;
let receiver: WebhookReceiver | null = null;
let dispatcher: AlertDispatcher | null = null;

function dispatcherTo(url: string, options: Pick<DispatcherOptions, 'attemptTimeoutMs' | 'timeoutSignal'> = {}): AlertDispatcher {
  // the receivers listen on loopback, a private target (target-delivery.test.ts checks the refusal)
  const policy = () => ({ allowPrivate: true, relayDomain: null });
  dispatcher = new AlertDispatcher((id) => (id === 'w1' ? { url, secret: SECRET } : undefined), clock, silentLogger(), { policy, ...options });
  return dispatcher;
}

s.before.each(() => {
  clock = new ManualClock();
});
s.after.each(async () => {
  await dispatcher?.close();
  await receiver?.close();
  dispatcher = receiver = null;
});

s('a delivery is a JSON POST signed with HMAC-SHA256 of its body; the log says delivered with the status code', async () => {
  receiver = await startReceiver(() => 204);
  const d = dispatcherTo(receiver.url);
  const queued = d.enqueue('w1', 'tunnel.down', { tunnel: { subdomain: 'app' } }, 'relay.example.test');
  assert.is(queued.state, 'pending');
  assert.is(receiver.received.length, 0, 'enqueue returns before anything is sent');
  await receiver.waitFor(1);
  await d.settled();
  const [got] = receiver.received;
  assert.is(got!.headers['content-type'], 'application/json');
  assert.is(got!.headers['x-relay-event'], 'tunnel.down');
  assert.is(got!.headers['x-relay-delivery'], queued.id);
  assert.is(got!.headers['x-relay-signature'], expectedSignature(SECRET, got!.body));
  assert.equal(got!.json, { id: queued.id, event: 'tunnel.down', at: new Date(clock.now()).toISOString(), box: 'relay.example.test', data: { tunnel: { subdomain: 'app' } } });
  const [logged] = d.deliveries();
  assert.equal([logged!.state, logged!.attempts, logged!.statusCode, logged!.error, logged!.nextAttemptAt], ['delivered', 1, 204, null, null]);
  assert.is(d.pendingCount(), 0);
});

s('enqueueAndAttempt answers once the first attempt ended, after waiting for room to start it; a silent receiver at the attempt timeout', () =>
  // the timeouts fire when the test says (a real 150 ms one also timed out the answered attempt on
  // a loaded machine); the app's clock never moves, so an answer that waited for a retry never comes
  withTimeout('enqueueAndAttempt', 10_000, async () => {
    receiver = await startReceiver((n) => (n <= MAX_IN_FLIGHT ? 'hang' : 200));
    const timeouts = manualTimeouts();
    const d = dispatcherTo(receiver.url, { attemptTimeoutMs: 150, timeoutSignal: timeouts.signal });
    for (let i = 0; i < MAX_IN_FLIGHT; i++) d.enqueue('w1', 'disk.low', {}, null);
    await receiver.waitFor(MAX_IN_FLIGHT);
    const waiting = d.enqueueAndAttempt('w1', 'test', {}, null);
    // the hanging attempts time out, then the test's own attempt is made and answered
    timeouts.fire();
    const waited = await waiting;
    assert.equal([waited.state, waited.attempts, waited.statusCode], ['delivered', 1, 200]);
    receiver.answer = () => 'hang';
    const stuck = d.enqueueAndAttempt('w1', 'test', {}, null);
    await receiver.waitFor(MAX_IN_FLIGHT + 2);
    timeouts.fire();
    const ended = await stuck;
    assert.equal([ended.state, ended.error], ['pending', 'no answer in 0.15 s']);
  }),
);

s('a failed attempt is tried again after 10 s, then 30 s; the same id and body each time', async () => {
  receiver = await startReceiver((n) => (n < 3 ? 500 : 200));
  const d = dispatcherTo(receiver.url);
  const start = clock.now();
  d.enqueue('w1', 'disk.low', { freePercent: 4 }, null);
  await receiver.waitFor(1);
  await d.settled();
  let [logged] = d.deliveries();
  assert.equal([logged!.state, logged!.attempts, logged!.statusCode, logged!.error], ['pending', 1, 500, 'HTTP 500']);
  assert.is(logged!.nextAttemptAt, new Date(start + BACKOFF_MS[0]!).toISOString());
  clock.advance(BACKOFF_MS[0]! - 1000);
  await d.settled();
  assert.is(receiver.received.length, 1, 'not before its time');
  clock.advance(1000);
  await receiver.waitFor(2);
  await d.settled();
  [logged] = d.deliveries();
  assert.is(logged!.nextAttemptAt, new Date(clock.now() + BACKOFF_MS[1]!).toISOString());
  clock.advance(BACKOFF_MS[1]!);
  await receiver.waitFor(3);
  await d.settled();
  [logged] = d.deliveries();
  assert.equal([logged!.state, logged!.attempts, logged!.statusCode], ['delivered', 3, 200]);
  assert.is(new Set(receiver.received.map((r) => r.body)).size, 1);
});

s('a receiver that keeps failing is given up an hour after the alert, after 9 attempts', async () => {
  receiver = await startReceiver(() => 503);
  const d = dispatcherTo(receiver.url);
  d.enqueue('w1', 'service.inactive', { service: 'proxy' }, null);
  await receiver.waitFor(1);
  await d.settled();
  for (let second = 0; second < 3700; second += 10) {
    clock.advance(10_000);
    await d.settled();
  }
  const [logged] = d.deliveries();
  // attempts at 0, 10, 40, 100, 220, 520, 1120, 2020, 2920 s; the next (3820 s) is past the hour
  assert.equal([logged!.state, logged!.attempts, logged!.statusCode, logged!.error], ['failed', 9, 503, 'HTTP 503']);
  assert.is(receiver.received.length, 9);
  assert.is(d.pendingCount(), 0);
});

s('an unreachable receiver: at most MAX_PENDING wait (the oldest dropped, and logged so) and the log keeps LOG_SIZE', async () => {
  const d = dispatcherTo(`http://127.0.0.1:${await unusedPort()}/hook`);
  for (let i = 0; i < 1000; i++) d.enqueue('w1', 'agent.revoked', { n: i }, null);
  await d.settled();
  assert.ok(d.pendingCount() <= MAX_PENDING, `${d.pendingCount()} waiting`);
  const log = d.deliveries();
  assert.is(log.length, LOG_SIZE);
  const states = new Set(log.map((l) => l.state));
  assert.ok(states.has('pending'), 'the newest still wait');
  assert.ok(states.has('dropped'), 'older ones were dropped');
  const refused = log.find((l) => l.state === 'pending' && l.attempts > 0)!;
  // not ECONNREFUSED: the log is no map of what listens where
  assert.is(refused.error, 'unreachable');
  assert.is(refused.statusCode, null);
});

/** Attempt timeouts that fire when the test says, not after their time: it need not wait them out. */
function manualTimeouts() {
  const waiting: AbortController[] = [];
  return {
    signal: (_ms: number) => {
      const controller = new AbortController();
      waiting.push(controller);
      return controller.signal;
    },
    /** Times out every attempt under way, as AbortSignal.timeout does. */
    fire: () => {
      for (const controller of waiting.splice(0)) controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    },
  };
}

s('a receiver that never answers: at most MAX_IN_FLIGHT requests open, each ended by the attempt timeout', async () => {
  receiver = await startReceiver(() => 'hang');
  const timeouts = manualTimeouts();
  const d = dispatcherTo(receiver.url, { attemptTimeoutMs: 1000, timeoutSignal: timeouts.signal });
  for (let i = 0; i < 20; i++) d.enqueue('w1', 'tunnel.up', { n: i }, null);
  await receiver.waitFor(MAX_IN_FLIGHT);
  await new Promise((resolve) => setTimeout(resolve, 200));
  assert.is(receiver.received.length, MAX_IN_FLIGHT, 'no more are sent while those wait');
  assert.is(receiver.open(), MAX_IN_FLIGHT);
  // and at no moment before any attempt timed out (afterwards the receiver sees an aborted
  // socket close only after the dispatcher's next attempt has connected)
  assert.is(receiver.mostOpen(), MAX_IN_FLIGHT);
  // the next ones are sent as the attempts under way time out, MAX_IN_FLIGHT at a time
  for (let sent = MAX_IN_FLIGHT; sent < 20; sent += MAX_IN_FLIGHT) {
    timeouts.fire();
    await receiver.waitFor(sent + MAX_IN_FLIGHT);
  }
  timeouts.fire();
  await d.settled();
  const tried = d.deliveries().filter((l) => l.attempts > 0);
  assert.ok(tried.length >= MAX_IN_FLIGHT);
  for (const l of tried) assert.equal([l.state, l.error], ['pending', 'no answer in 1 s']);
});

s('close ends the attempts under way at once, though their timeout is far off', async () => {
  receiver = await startReceiver(() => 'hang');
  const timeouts = manualTimeouts();
  const d = dispatcherTo(receiver.url, { attemptTimeoutMs: 60_000, timeoutSignal: timeouts.signal });
  d.enqueue('w1', 'tunnel.up', { n: 1 }, null);
  await receiver.waitFor(1);
  try {
    await withTimeout('close with an attempt hanging', 2000, () => d.close());
  } finally {
    // a close that did not end it must not hang the suite's own close after
    timeouts.fire();
  }
  assert.is(receiver.received.length, 1);
});

s('a deleted webhook: what waits is dropped and nothing more is sent', async () => {
  receiver = await startReceiver(() => 500);
  const d = dispatcherTo(receiver.url);
  d.enqueue('w1', 'cert.expiring', {}, null);
  await receiver.waitFor(1);
  await d.settled();
  d.forget('w1');
  clock.advance(BACKOFF_MS[0]!);
  await d.settled();
  assert.is(receiver.received.length, 1);
  assert.equal([d.deliveries()[0]!.state, d.deliveries()[0]!.error], ['dropped', 'webhook deleted']);
  assert.is(d.pendingCount(), 0);
});

s.run();
