import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { AppError } from '../../../lib/errors.ts';
import { OnboardingService } from '../../../lib/onboarding/service.ts';
import type { PublicLinks } from '../../../lib/public-links.ts';
import { createTestApp, type TestApp } from '../../../lib/testing.ts';
import { DOMAIN, EMAIL, HOST_IP, nextOutcome, sandbox, walkToDnsReady, CHEAP_ONBOARDING } from './support.ts';

const s = suite('onboarding transitions');
let t: TestApp;
s.before.each(async () => {
  t = await createTestApp({ onboarding: CHEAP_ONBOARDING });
});
s.after.each(async () => {
  await t.close();
});

const status = async () => (await t.call('GET', '/api/onboarding/status')).body.status;

s('status answers FRESH with no domain yet', async () => {
  const { status: code, body } = await t.call('GET', '/api/onboarding/status');
  assert.is(code, 200);
  assert.equal(body, { status: 'FRESH', domain: null, email: null, suggestedDomain: 'relay.localhost', publicLinks: { scheme: 'https', port: null } });
});

s('FRESH -> DOMAIN_SET stores domain and email; a re-submission replaces them', async () => {
  const first = await t.call('POST', '/api/onboarding/domain', { body: { domain: 'First.Example.test', email: EMAIL } });
  assert.is(first.status, 200);
  assert.equal(first.body, { ok: true, status: 'DOMAIN_SET', domain: 'first.example.test', email: EMAIL });
  const again = await t.call('POST', '/api/onboarding/domain', { body: { domain: DOMAIN, email: 'admin@example.test' } });
  assert.equal(again.body, { ok: true, status: 'DOMAIN_SET', domain: DOMAIN, email: 'admin@example.test' });
  assert.equal((await t.call('GET', '/api/onboarding/status')).body, { status: 'DOMAIN_SET', domain: DOMAIN, email: 'admin@example.test', suggestedDomain: 'relay.localhost', publicLinks: { scheme: 'https', port: null } });
});

s('an invalid domain or email is a 400 validation failure and changes nothing', async () => {
  const { status: code, body } = await t.call('POST', '/api/onboarding/domain', { body: { domain: 'https://example.com', email: 'nope' } });
  assert.is(code, 400);
  assert.is(body.error, 'Validation failed');
  assert.equal(body.details.issues.map((i: { path: string }) => i.path).sort(), ['domain', 'email']);
  assert.is(await status(), 'FRESH');
});

s('relay.localhost, offered in the sandbox, is taken there; a real host refuses it as a validation failure', async () => {
  assert.is((await t.call('GET', '/api/onboarding/status')).body.suggestedDomain, 'relay.localhost');
  const taken = await t.call('POST', '/api/onboarding/domain', { body: { domain: 'relay.localhost', email: EMAIL } });
  assert.equal([taken.status, taken.body.domain], [200, 'relay.localhost']);
  // the same service where the panel drives a real host (publicLinks.sandbox false)
  const { config, system, clock, log } = t.services;
  const onHost = new OnboardingService({ config, system, clock, log, publicLinks: { sandbox: false } as PublicLinks });
  const refused = await onHost.setDomain({ domain: 'relay.localhost', email: EMAIL }).then(() => null, (e: AppError) => e);
  assert.is(refused?.status, 400);
  assert.equal(refused?.details, { issues: [{ path: 'domain', message: 'must be a public domain name: names under .localhost resolve only on the machine that asks, and get no certificate' }] });
  assert.equal((await onHost.setDomain({ domain: DOMAIN, email: EMAIL })).domain, DOMAIN);
});

s('verify-dns and provision in FRESH are 409s naming current and required status', async () => {
  const dns = await t.call('POST', '/api/onboarding/verify-dns');
  assert.is(dns.status, 409);
  assert.equal(dns.body, {
    error: 'DNS verification requires onboarding status DOMAIN_SET or DNS_READY; current status is FRESH',
    details: { currentStatus: 'FRESH', requiredStatus: ['DOMAIN_SET', 'DNS_READY'] },
  });
  const provision = await t.call('POST', '/api/onboarding/provision');
  assert.is(provision.status, 409);
  assert.equal(provision.body.details, { currentStatus: 'FRESH', requiredStatus: ['DNS_READY', 'PROVISIONING'] });
});

s('provision in DOMAIN_SET is a 409', async () => {
  await t.call('POST', '/api/onboarding/domain', { body: { domain: DOMAIN, email: EMAIL } });
  const { status: code, body } = await t.call('POST', '/api/onboarding/provision');
  assert.is(code, 409);
  assert.equal(body.details, { currentStatus: 'DOMAIN_SET', requiredStatus: ['DNS_READY', 'PROVISIONING'] });
});

s('DOMAIN_SET -> DNS_READY when the base resolves to the host ip; the wildcard result is reported', async () => {
  await t.call('POST', '/api/onboarding/domain', { body: { domain: DOMAIN, email: EMAIL } });
  const { status: code, body } = await t.call('POST', '/api/onboarding/verify-dns');
  assert.is(code, 200);
  assert.is(body.ok, true);
  assert.is(body.status, 'DNS_READY');
  assert.equal(body.base, { name: DOMAIN, addresses: [HOST_IP], ok: true });
  assert.is(body.wildcard.ok, true);
  assert.match(body.wildcard.name, new RegExp(`^relay-probe-[0-9a-f]{10}\\.${DOMAIN.replace(/\./g, '\\.')}$`));
  assert.match(body.message, /Wildcard DNS works/);
  assert.is(await status(), 'DNS_READY');
});

s('a missing wildcard does not block, and the answer says subdomains need their own records', async () => {
  await t.call('POST', '/api/onboarding/domain', { body: { domain: DOMAIN, email: EMAIL } });
  sandbox(t).setDns(DOMAIN, [HOST_IP]);
  // the base keeps its record; any other name under it (the probe) does not resolve
  const resolve4 = t.services.system.dns.resolve4;
  t.services.system.dns.resolve4 = async (name) => (name === DOMAIN ? resolve4(name) : []);
  const { status: code, body } = await t.call('POST', '/api/onboarding/verify-dns');
  assert.is(code, 200);
  assert.is(body.status, 'DNS_READY');
  assert.is(body.wildcard.ok, false);
  assert.equal(body.wildcard.addresses, []);
  assert.match(body.message, /No wildcard record .* does not resolve\)\. You can continue, but panel\., auth\., tunnel\./);
});

s('a base domain pointing elsewhere: 400 {error, details} saying what it resolves to; status stays DOMAIN_SET', async () => {
  await t.call('POST', '/api/onboarding/domain', { body: { domain: DOMAIN, email: EMAIL } });
  sandbox(t).setDns(DOMAIN, ['198.51.100.4']);
  const { status: code, body } = await t.call('POST', '/api/onboarding/verify-dns');
  assert.is(code, 400);
  // the spec's error shape: the report goes in details, nothing else at the top
  assert.equal(Object.keys(body).sort(), ['details', 'error']);
  assert.is(body.error, 'DNS verification failed');
  assert.match(body.details.message, `${DOMAIN} resolves to 198.51.100.4, not to this host (${HOST_IP})`);
  assert.equal(body.details.base, { name: DOMAIN, addresses: ['198.51.100.4'], ok: false });
  assert.equal([body.details.status, body.details.domain, body.details.ip], ['DOMAIN_SET', DOMAIN, HOST_IP]);
  assert.is(await status(), 'DOMAIN_SET');
});

s('a base domain that does not resolve: 400 saying so', async () => {
  await t.call('POST', '/api/onboarding/domain', { body: { domain: DOMAIN, email: EMAIL } });
  sandbox(t).setDns(DOMAIN, []);
  const { status: code, body } = await t.call('POST', '/api/onboarding/verify-dns');
  assert.is(code, 400);
  assert.match(body.details.message, `${DOMAIN} does not resolve. Point an A record for ${DOMAIN} to ${HOST_IP}`);
});

s('a resolver error is reported as such', async () => {
  await t.call('POST', '/api/onboarding/domain', { body: { domain: DOMAIN, email: EMAIL } });
  sandbox(t).failNext('dns.resolve4', 'SERVFAIL', 2);
  const { status: code, body } = await t.call('POST', '/api/onboarding/verify-dns');
  assert.is(code, 400);
  assert.match(body.details.message, `${DOMAIN} could not be resolved (SERVFAIL)`);
});

s('a second address next to the host ip fails the base check', async () => {
  await t.call('POST', '/api/onboarding/domain', { body: { domain: DOMAIN, email: EMAIL } });
  sandbox(t).setDns(DOMAIN, [HOST_IP, '198.51.100.4']);
  const { status: code, body } = await t.call('POST', '/api/onboarding/verify-dns');
  assert.is(code, 400);
  assert.match(body.details.message, `resolves to ${HOST_IP}, 198.51.100.4, not to this host`);
});

s('DNS_READY: a re-check is allowed; a failing one keeps DNS_READY; the domain is now locked (409)', async () => {
  await walkToDnsReady(t);
  const again = await t.call('POST', '/api/onboarding/verify-dns');
  assert.is(again.status, 200);
  assert.is(again.body.status, 'DNS_READY');
  sandbox(t).setDns(DOMAIN, []);
  const failing = await t.call('POST', '/api/onboarding/verify-dns');
  assert.is(failing.status, 400);
  assert.is(failing.body.details.status, 'DNS_READY');
  assert.is(await status(), 'DNS_READY');
  const domain = await t.call('POST', '/api/onboarding/domain', { body: { domain: 'other.example.test', email: EMAIL } });
  assert.is(domain.status, 409);
  assert.equal(domain.body.details, { currentStatus: 'DNS_READY', requiredStatus: ['FRESH', 'DOMAIN_SET'] });
});

s('DNS_READY -> PROVISIONING with 202 at once; a second POST while running starts nothing', async () => {
  await walkToDnsReady(t);
  const outcome = nextOutcome(t);
  const first = await t.call('POST', '/api/onboarding/provision');
  assert.is(first.status, 202);
  assert.equal(first.body, {
    ok: true,
    started: true,
    status: 'PROVISIONING',
    message: 'Provisioning started',
    stream: '/api/onboarding/provision/stream',
  });
  assert.is(await status(), 'PROVISIONING');
  const second = await t.call('POST', '/api/onboarding/provision');
  assert.is(second.status, 202);
  assert.is(second.body.started, false);
  assert.is(second.body.message, 'Provisioning is already running');
  // in PROVISIONING the earlier steps are closed
  assert.is((await t.call('POST', '/api/onboarding/domain', { body: { domain: DOMAIN, email: EMAIL } })).status, 409);
  assert.is((await t.call('POST', '/api/onboarding/verify-dns')).status, 409);
  assert.is((await outcome).type, 'complete');
  assert.is(sandbox(t).eventsOf('tunnelServer.install').length, 1, 'one run only');
});

s('PROVISIONING -> COMPLETED: onboarding routes but status answer 410, management routes open', async () => {
  assert.is((await t.call('GET', '/api/tunnels')).status, 503);
  assert.equal((await t.call('GET', '/api/tunnels')).body, { error: 'Onboarding not complete', onboardingStatus: 'FRESH' });
  await walkToDnsReady(t);
  assert.equal((await t.call('GET', '/api/tunnels')).body.onboardingStatus, 'DNS_READY');
  const outcome = nextOutcome(t);
  await t.call('POST', '/api/onboarding/provision');
  assert.is((await outcome).type, 'complete');
  assert.is(await status(), 'COMPLETED');
  for (const path of ['/api/onboarding/domain', '/api/onboarding/verify-dns', '/api/onboarding/provision']) {
    const { status: code, body } = await t.call('POST', path, { body: { domain: DOMAIN, email: EMAIL } });
    assert.is(code, 410, path);
    assert.equal(body, { error: 'Onboarding already completed' });
  }
  assert.is((await t.call('GET', '/api/onboarding/provision/stream')).status, 410);
  assert.equal((await t.call('GET', '/api/onboarding/status')).body, { status: 'COMPLETED', domain: DOMAIN, email: EMAIL, suggestedDomain: 'relay.localhost', publicLinks: { scheme: 'https', port: null } });
  assert.is((await t.call('GET', '/api/tunnels')).status, 200);
});

s('onboarding routes are admin-only', async () => {
  assert.is((await t.call('POST', '/api/onboarding/domain', { as: 'none', body: { domain: DOMAIN, email: EMAIL } })).status, 403);
  const agent = await t.call('POST', '/api/onboarding/verify-dns', { as: { agent: 'laptop' } });
  assert.is(agent.status, 403);
});

s.run();
