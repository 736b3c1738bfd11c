// Where a delivery may go, decided at each attempt. A name is resolved by an injected
// resolver (nothing here asks real DNS or leaves the machine: every address is loopback, and a
// refused one is refused before any connection), its addresses are checked, and the connection goes
// to exactly the checked address; redirects are answers, not followed; the log names no socket error.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AlertDispatcher } from '../../../lib/alerts/dispatcher.ts';
import { checkedAddresses, TargetRefused, type ResolveHost, type TargetPolicy } from '../../../lib/alerts/target.ts';
import { silentLogger } from '../../../lib/log.ts';
import { unusedPort } from '../../helpers/loopback-listener.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';
import { startReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.ts';

const s = suite('alerts: delivery targets (resolved, checked, pinned; no redirects)');
const PRIVATE_OFF: TargetPolicy = { allowPrivate: false, relayDomain: null };
const PRIVATE_ON: TargetPolicy = { allowPrivate: true, relayDomain: null };

let receivers: WebhookReceiver[] = [];
let dispatcher: AlertDispatcher | null = null;

s.after.each(async () => {
  await dispatcher?.close();
  await Promise.all(receivers.map((r) => r.close()));
  dispatcher = null;
  receivers = [];
});

async function receiver(answer?: WebhookReceiver['answer']): Promise<WebhookReceiver> {
  const r = await startReceiver(answer);
  receivers.push(r);
  return r;
}

/** A resolver that answers `answers[n]` to its n-th question (the last one after that) and counts them. */
function resolverOf(...answers: string[][]): ResolveHost & { asked: string[] } {
  const asked: string[] = [];
  const resolve = async (hostname: string) => {
    asked.push(hostname);
    const addresses = answers[Math.min(asked.length - 1, answers.length - 1)]!;
    return addresses.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) }));
  };
  return Object.assign(resolve, { asked });
}

/** One delivery to `url`, run to its first attempt's end; the log entry. */
async function deliverOnce(url: string, policy: TargetPolicy, resolve?: ResolveHost) {
  dispatcher = new AlertDispatcher((id) => (id === 'w1' ? { url, secret: 'a-secret-of-enough-length' } : undefined), new ManualClock(), silentLogger(), { policy: () => policy, resolve });
  dispatcher.enqueue('w1', 'test', { message: 'hello' }, null);
  await dispatcher.settled();
  return dispatcher.deliveries()[0]!;
}

const portOf = (r: WebhookReceiver) => new URL(r.url).port;

s('a name that resolves to loopback is refused at delivery, though it passed as a name when saved', async () => {
  const r = await receiver();
  const resolve = resolverOf(['127.0.0.1']);
  const logged = await deliverOnce(`http://hooks.example.com:${portOf(r)}/hook`, PRIVATE_OFF, resolve);
  assert.equal([logged.state, logged.error, logged.statusCode], ['pending', 'refused: private address', null]);
  assert.equal(resolve.asked, ['hooks.example.com']);
  assert.is(r.received.length, 0, 'nothing was sent');
});

// The address checks alone, which connect to nothing: only loopback is ever connected to in this
// file, so even a regression sends no packet off the machine (nor to 169.254.169.254).
const signal = new AbortController().signal;
const named = new URL('https://hooks.example.com/hook');
const refuses = (policy: TargetPolicy, answer: string[]) =>
  checkedAddresses(named, policy, resolverOf(answer), signal).then(() => assert.unreachable(`${answer.join(' ')} accepted`), (error) => assert.instance(error, TargetRefused));

s('every inward form a resolver may answer is refused, and one inward address among public ones refuses the whole name', async () => {
  const inward = [['127.0.0.1', '::1'], ['::ffff:127.0.0.1'], ['169.254.169.254'], ['fe80::1'], ['10.1.2.3'], ['192.168.0.9'], ['100.64.0.1'], ['fd12::1'], ['0.0.0.0'], ['224.0.0.1']];
  for (const answer of [...inward, ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c', '127.0.0.1']]) await refuses(PRIVATE_OFF, answer);
  assert.equal(await checkedAddresses(named, PRIVATE_OFF, resolverOf(['93.184.215.14']), signal), [{ address: '93.184.215.14', family: 4 }]);
});

s('private targets allowed: loopback, RFC 1918, CGNAT and unique local pass; link-local, unspecified, multicast and metadata do not', async () => {
  for (const answer of [['127.0.0.1'], ['::1'], ['10.1.2.3'], ['100.64.0.1'], ['fd12::1']]) assert.is((await checkedAddresses(named, PRIVATE_ON, resolverOf(answer), signal)).length, 1);
  for (const answer of [['169.254.169.254'], ['fe80::1'], ['0.0.0.0'], ['::'], ['224.0.0.1'], ['fd00:ec2::254'], ['100.100.100.200']]) await refuses(PRIVATE_ON, answer);
});

s('numeric spellings of loopback are refused at delivery too (the URL parser normalises them first)', async () => {
  const r = await receiver();
  for (const host of ['2130706433', '0x7f.1', '127.1', '[::ffff:127.0.0.1]', '[::1]', 'localhost']) {
    const logged = await deliverOnce(`http://${host}:${portOf(r)}/hook`, PRIVATE_OFF, resolverOf(['127.0.0.1']));
    assert.is(logged.error, 'refused: private address', host);
    await dispatcher!.close();
  }
  assert.is(r.received.length, 0);
});

s('the connection goes to the checked address: one lookup per attempt, the name kept in the Host header', async () => {
  const r = await receiver();
  // a second lookup would get an address with nothing listening (and real DNS knows no .test name)
  const resolve = resolverOf(['127.0.0.1'], ['127.0.0.2']);
  const logged = await deliverOnce(`http://hooks.example.test:${portOf(r)}/hook`, PRIVATE_ON, resolve);
  assert.equal([logged.state, logged.statusCode, logged.error], ['delivered', 200, null]);
  assert.is(resolve.asked.length, 1);
  assert.is(r.received[0]!.headers.host, `hooks.example.test:${portOf(r)}`);
});

s('with private targets allowed, a loopback receiver gets the alert', async () => {
  const r = await receiver();
  assert.is((await deliverOnce(r.url, PRIVATE_ON)).state, 'delivered');
  assert.is(r.received.length, 1);
});

s('a redirect is an answer: logged as HTTP 302 and never followed', async () => {
  const elsewhere = await receiver();
  const r = await receiver(() => ({ status: 302, headers: { location: elsewhere.url } }));
  const logged = await deliverOnce(r.url, PRIVATE_ON);
  assert.equal([logged.state, logged.statusCode, logged.error], ['pending', 302, 'HTTP 302']);
  assert.is(r.received.length, 1);
  assert.is(elsewhere.received.length, 0, 'the redirect target got no request');
});

s('no connection says "unreachable", not the socket error; a name that does not resolve says the same', async () => {
  const closed = `http://127.0.0.1:${await unusedPort()}/hook`;
  const logged = await deliverOnce(closed, PRIVATE_ON);
  assert.equal([logged.state, logged.error, logged.statusCode], ['pending', 'unreachable', null]);
  await dispatcher!.close();
  const nowhere: ResolveHost = async () => {
    throw Object.assign(new Error('getaddrinfo ENOTFOUND hooks.example.test'), { code: 'ENOTFOUND' });
  };
  assert.is((await deliverOnce('http://hooks.example.test/hook', PRIVATE_ON, nowhere)).error, 'unreachable');
});

s.run();
