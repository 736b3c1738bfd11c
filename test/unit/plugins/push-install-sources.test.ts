// A push-install policy's source-address rules (Portlama's allowedIps/deniedIps), checked
// against the client's address as the proxy gives it (X-Forwarded-For from the loopback peer), and
// policies stored before the rules existed.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sourceAllowed } from '../../../lib/plugins/ip-rules.ts';
import { callerHeaders, createTestApp } from '../../../lib/testing.ts';
import { serve } from '../../helpers/http-server.ts';

const s = suite('push-install source addresses');
const BASE = '/api/plugins/push-install';

s('the rule: a denied match refuses, a non-empty allow list must match, empty lists allow any', () => {
  const allowed = ['192.168.1.0/24', 'fd00::/8'];
  const denied = ['192.168.1.66'];
  assert.ok(sourceAllowed('192.168.1.10', allowed, denied));
  assert.ok(sourceAllowed('::ffff:192.168.1.10', allowed, denied), 'an IPv4 client on an IPv6 socket');
  assert.ok(sourceAllowed('fd12::1', allowed, denied));
  assert.not.ok(sourceAllowed('192.168.1.66', allowed, denied), 'denied wins');
  assert.not.ok(sourceAllowed('192.168.2.1', allowed, denied), 'outside the allow list');
  assert.ok(sourceAllowed('203.0.113.9', [], denied), 'no allow list');
  assert.not.ok(sourceAllowed('10.1.2.3', [], ['10.0.0.0/8']));
  assert.ok(sourceAllowed(undefined, [], []), 'no rules, no address needed');
  assert.not.ok(sourceAllowed(undefined, [], denied), 'a rule is never skipped for want of an address');
});

s('a push from an address its policy refuses is 403 and not recorded; behind the proxy the forwarded address counts', async () => {
  const t = await createTestApp({ config: { plugins: { allowedScopes: ['@acme'] } } });
  await t.completeOnboarding();
  await t.addAgent('laptop', []);
  const server = await serve(t.app);
  const push = (from: string) => fetch(`${server.url}${BASE}/laptop`, {
    method: 'POST',
    headers: { ...callerHeaders('admin'), 'content-type': 'application/json', 'x-forwarded-for': from },
    body: JSON.stringify({ packageName: '@acme/hello' }),
  }).then(async (r) => [r.status, ((await r.json()) as { error?: string }).error]);
  try {
    await t.call('POST', `${BASE}/policies`, { body: { name: 'lan', allowedIps: ['192.168.1.0/24'], deniedIps: ['192.168.1.66'] } });
    await t.call('PATCH', `${BASE}/config`, { body: { enabled: true } });
    await t.call('POST', `${BASE}/enable/laptop`, { body: { policyId: 'lan' } });
    assert.equal(await push('192.168.1.10'), [201, undefined]);
    assert.equal(await push('192.168.1.66'), [403, 'Source IP is not allowed']);
    assert.equal(await push('198.51.100.7'), [403, 'Source IP is not allowed']);
    assert.equal(await push('192.168.1.10, 198.51.100.7'), [403, 'Source IP is not allowed'], 'only the hop nginx appended is trusted');
    assert.is(t.services.pushInstall.sessions().length, 1);
  } finally {
    await server.close();
    await t.close();
  }
});

s('policies stored before address rules existed load: no address rules, their ids and the default policy still built in', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'relay-push-'));
  await mkdir(join(dir, 'data'), { recursive: true });
  const older = { id: '0b7c3f52-9a1e-4f7d-8c2b-5e6f7a8b9c0d', name: 'tools', description: '', allowedPlugins: ['@acme/hello'], allowedActions: ['install'], createdAt: '2026-01-01T00:00:00.000Z', updatedAt: '2026-01-01T00:00:00.000Z' };
  await writeFile(join(dir, 'data', 'pushPolicies.json'), JSON.stringify([older]));
  const t = await createTestApp({ dir, config: { plugins: { allowedScopes: [], pushInstall: { enabled: true, defaultPolicyId: older.id } } } });
  try {
    await t.completeOnboarding();
    await t.addAgent('laptop', []);
    const config = (await t.call('GET', `${BASE}/config`)).body;
    assert.is(config.defaultPolicy, older.id);
    assert.equal(config.policies.map((p: { id: string }) => p.id), ['default', older.id]);
    assert.equal(config.policies[1], { ...older, allowedIps: [], deniedIps: [] });
    const opened = await t.call('POST', `${BASE}/enable/laptop`, { body: {} });
    assert.equal([opened.status, opened.body.policyId], [200, older.id], 'the older default is the default');
    assert.is((await t.call('PATCH', `${BASE}/policies/${older.id}`, { body: { deniedIps: ['10.0.0.0/8'] } })).status, 200);
  } finally {
    await t.close();
  }
});

s.run();
