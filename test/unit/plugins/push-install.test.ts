// Push-install — a switch, policies, per-agent windows that expire, every push recorded,
// and agent-status for the calling agent. Portlama's shapes — a `default` policy that
// always exists, ids from the client or the name, its statuses and messages.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_PUSH_SESSIONS } from '../../../lib/plugins/push-install.ts';
import { createTestApp, type TestApp } from '../../../lib/testing.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';

const s = suite('push-install');
const BASE = '/api/plugins/push-install';
const T0 = '2026-11-22T00:00:00.000Z';
const NO_IP_RULES = { allowedIps: [], deniedIps: [] };
/** Portlama's default actions, for the `default` policy and a new one naming none. */
const DEFAULT_ACTIONS = ['install', 'update', 'check-prerequisites'];
const BUILT_IN = { id: 'default', name: 'Default', description: 'Standard push install policy', allowedPlugins: [], allowedActions: DEFAULT_ACTIONS, ...NO_IP_RULES, createdAt: T0, updatedAt: T0 };

async function setUp(clock = new ManualClock()): Promise<{ t: TestApp; clock: ManualClock; policyId: string }> {
  const t = await createTestApp({ clock, config: { plugins: { allowedScopes: ['@acme'] } } });
  await t.completeOnboarding();
  await t.addAgent('laptop', []);
  const created = await t.call('POST', `${BASE}/policies`, { body: { name: 'hello only', allowedPlugins: ['@acme/hello'] } });
  assert.is(created.status, 201);
  return { t, clock, policyId: created.body.policy.id };
}

s('config: off, the `default` policy and the policies; PATCH takes defaultPolicy or the older defaultPolicyId', async () => {
  const { t, policyId } = await setUp();
  try {
    const policies = (await t.call('GET', `${BASE}/policies`)).body.policies;
    assert.equal((await t.call('GET', `${BASE}/config`)).body, { enabled: false, defaultPolicy: 'default', defaultPolicyId: 'default', policies });
    const patched = await t.call('PATCH', `${BASE}/config`, { body: { enabled: true, defaultPolicy: policyId } });
    const shown = { enabled: true, defaultPolicy: policyId, defaultPolicyId: policyId, policies };
    assert.equal(patched.body, { ok: true, ...shown, config: shown }, "Portlama's flat answer, and ours under config");
    assert.equal((await t.call('GET', `${BASE}/config`)).body, shown);
    assert.is((await t.call('PATCH', `${BASE}/config`, { body: { defaultPolicyId: null } })).body.defaultPolicy, 'default', 'null is the default policy');
    assert.is((await t.call('PATCH', `${BASE}/config`, { body: { defaultPolicyId: policyId } })).body.defaultPolicy, policyId);

    const unknown = await t.call('PATCH', `${BASE}/config`, { body: { defaultPolicy: 'nope' } });
    assert.equal([unknown.status, unknown.body.error], [400, 'Policy "nope" not found']);
    assert.is((await t.call('PATCH', `${BASE}/config`, { body: { defaultPolicy: 'default', defaultPolicyId: 'default' } })).status, 400);
    assert.is((await t.call('PATCH', `${BASE}/config`, { body: {} })).status, 400);
    assert.is((await t.call('GET', `${BASE}/config`, { as: { agent: 'laptop' } })).status, 403);
    assert.equal(t.services.config.value.plugins.pushInstall, { enabled: true, defaultPolicy: policyId });
  } finally {
    await t.close();
  }
});

s('the `default` policy always exists: listed, changed like any other, never deleted (400), its id never taken', async () => {
  const { t, clock } = await setUp();
  try {
    const listed = (await t.call('GET', `${BASE}/policies`)).body.policies;
    assert.equal(listed.map((p: { id: string }) => p.id), ['default', 'hello-only'], 'by name');
    assert.equal(listed[0], BUILT_IN);
    assert.not.ok(t.services.store.pushPolicies.has('default'), 'nothing written until it changes');

    const deleted = await t.call('DELETE', `${BASE}/policies/default`);
    assert.equal([deleted.status, deleted.body.error], [400, 'Cannot delete the default policy']);
    const taken = await t.call('POST', `${BASE}/policies`, { body: { name: 'Mine', id: 'default' } });
    assert.equal([taken.status, taken.body.error], [409, 'Policy "default" already exists']);

    clock.advance(60_000);
    const patched = await t.call('PATCH', `${BASE}/policies/default`, { body: { allowedPlugins: ['@acme/hello'] } });
    assert.equal(patched.body, { ok: true, policy: { ...BUILT_IN, allowedPlugins: ['@acme/hello'], updatedAt: '2026-11-22T00:01:00.000Z' } });
    assert.equal(t.services.store.pushPolicies.get('default'), patched.body.policy, 'stored once changed');
    assert.is((await t.call('DELETE', `${BASE}/policies/default`)).status, 400, 'still not deletable');
  } finally {
    await t.close();
  }
});

s("policies: Portlama's ids (the client's or the name's slug), 409 for a taken id, defaults, patch, delete", async () => {
  const { t, policyId } = await setUp();
  try {
    assert.is(policyId, 'hello-only', 'the slug of the name');
    const [, policy] = (await t.call('GET', `${BASE}/policies`)).body.policies;
    assert.equal(policy, { id: 'hello-only', name: 'hello only', description: '', allowedPlugins: ['@acme/hello'], allowedActions: DEFAULT_ACTIONS, ...NO_IP_RULES, createdAt: T0, updatedAt: T0 });

    const bare = await t.call('POST', `${BASE}/policies`, { body: { name: 'e2e-pi-test', description: 'E2E test policy', allowedActions: ['install', 'update'] } });
    assert.equal([bare.status, bare.body.ok, bare.body.policy.id, bare.body.policy.allowedPlugins], [201, true, 'e2e-pi-test', []]);
    const named = await t.call('POST', `${BASE}/policies`, { body: { name: 'Anything', id: 'dup-pi-test' } });
    assert.is(named.body.policy.id, 'dup-pi-test');
    const dup = await t.call('POST', `${BASE}/policies`, { body: { name: 'Other', id: 'dup-pi-test' } });
    assert.equal([dup.status, dup.body.error], [409, 'Policy "dup-pi-test" already exists']);
    assert.is((await t.call('POST', `${BASE}/policies`, { body: { name: 'Hello Only!' } })).status, 409, 'the same slug');
    const noSlug = await t.call('POST', `${BASE}/policies`, { body: { name: '!!!' } });
    assert.equal([noSlug.status, noSlug.body.error], [400, 'Policy name cannot be empty']);
    assert.is((await t.call('POST', `${BASE}/policies`, { body: { name: '' } })).status, 400);
    assert.is((await t.call('POST', `${BASE}/policies`, { body: { name: 'x', id: 'Not_An_Id' } })).status, 400);
    assert.is((await t.call('POST', `${BASE}/policies`, { body: { name: 'bad', allowedPlugins: ['Not A Name'] } })).status, 400);
    for (const ip of ['300.1.1.1', '10.0.0.0/33', '10.0.0.0/8/8', 'fd00::/129', 'example.com']) {
      assert.is((await t.call('POST', `${BASE}/policies`, { body: { name: 'bad ip', allowedIps: [ip] } })).status, 400, ip);
    }
    const ipRules = { allowedIps: ['192.168.1.0/24', '10.0.0.5', 'fd00::/8'], deniedIps: ['192.168.1.66'] };
    assert.equal((await t.call('POST', `${BASE}/policies`, { body: { name: 'lan', ...ipRules } })).body.policy, { ...t.services.pushInstall.policies.get('lan'), ...ipRules });

    const patched = await t.call('PATCH', `${BASE}/policies/e2e-pi-test`, { body: { description: 'Updated by E2E' } });
    assert.equal([patched.body.ok, patched.body.policy.description, patched.body.policy.name], [true, 'Updated by E2E', 'e2e-pi-test']);
    const missing = await t.call('PATCH', `${BASE}/policies/does-not-exist`, { body: { name: 'x' } });
    assert.equal([missing.status, missing.body.error], [404, 'Policy "does-not-exist" not found']);
    assert.is((await t.call('DELETE', `${BASE}/policies/does-not-exist`)).status, 404);
    assert.equal((await t.call('DELETE', `${BASE}/policies/e2e-pi-test`)).body, { ok: true, id: 'e2e-pi-test' });
    assert.not.ok((await t.call('GET', `${BASE}/policies`)).body.policies.some((p: { id: string }) => p.id === 'e2e-pi-test'));
  } finally {
    await t.close();
  }
});

s('deleting: 409 while an unexpired window uses the policy; the configured default falls back to `default`', async () => {
  const { t, policyId } = await setUp();
  try {
    await t.call('PATCH', `${BASE}/config`, { body: { enabled: true, defaultPolicy: policyId } });
    await t.call('POST', `${BASE}/enable/laptop`, { body: {} });
    const inUse = await t.call('DELETE', `${BASE}/policies/${policyId}`);
    assert.equal([inUse.status, inUse.body.error], [409, `Policy "${policyId}" is in use`]);
    await t.call('DELETE', `${BASE}/enable/laptop`);
    assert.equal((await t.call('DELETE', `${BASE}/policies/${policyId}`)).body, { ok: true, id: policyId });
    assert.is((await t.call('GET', `${BASE}/config`)).body.defaultPolicy, 'default');
  } finally {
    await t.close();
  }
});

s("enable and disable: Portlama's order of checks, bounds and answer", async () => {
  const { t, policyId } = await setUp();
  const enable = (label: string, body: unknown) => t.call('POST', `${BASE}/enable/${label}`, { body });
  try {
    const off = await enable('laptop', { durationMinutes: 5 });
    assert.equal([off.status, off.body.error], [400, 'Push install is not enabled globally']);
    await t.call('PATCH', `${BASE}/config`, { body: { enabled: true } });
    const noPolicy = await enable('laptop', { policyId: 'nope' });
    assert.equal([noPolicy.status, noPolicy.body.error], [404, 'Policy "nope" not found']);
    const ghost = await enable('ghost', { durationMinutes: 5 });
    assert.equal([ghost.status, ghost.body.error], [404, 'Agent certificate "ghost" not found']);
    for (const durationMinutes of [0, 4, 481, 9999]) assert.is((await enable('laptop', { durationMinutes })).status, 400, `${durationMinutes} minutes`);
    assert.is((await enable('INVALID_LABEL!', { durationMinutes: 5 })).status, 400);

    const byDefault = await enable('laptop', { durationMinutes: 5 });
    assert.equal(byDefault.body, {
      ok: true, label: 'laptop', policyId: 'default', enabledAt: T0, expiresAt: '2026-11-22T00:05:00.000Z',
      pushInstallEnabledUntil: '2026-11-22T00:05:00.000Z', pushInstallPolicy: 'default',
    });
    assert.is((await enable('laptop', { policyId })).body.expiresAt, '2026-11-22T01:00:00.000Z', 'an hour unless told');

    assert.equal((await t.call('DELETE', `${BASE}/enable/laptop`)).body, { ok: true, label: 'laptop' });
    assert.equal((await t.call('DELETE', `${BASE}/enable/laptop`)).body, { ok: true, label: 'laptop' }, 'no window is not an error');
    const gone = await t.call('DELETE', `${BASE}/enable/does-not-exist`);
    assert.equal([gone.status, gone.body.error], [404, 'Agent certificate "does-not-exist" not found']);
  } finally {
    await t.close();
  }
});

s('a push needs the switch, the agent, an unexpired window and its policy; each one is recorded', async () => {
  const { t, clock, policyId } = await setUp();
  const push = (body: unknown, label = 'laptop') => t.call('POST', `${BASE}/${label}`, { body });
  const refusal = async (body: unknown, label?: string) => {
    const answer = await push(body, label);
    return [answer.status, answer.body.error];
  };
  try {
    assert.equal(await refusal({ packageName: '@acme/hello' }), [400, 'Push install is not enabled globally']);
    await t.call('PATCH', `${BASE}/config`, { body: { enabled: true } });
    assert.equal(await refusal({ packageName: '@acme/hello' }, 'ghost'), [404, 'Agent certificate "ghost" not found']);
    assert.equal(await refusal({ packageName: '@acme/hello' }), [403, 'Push install access not enabled for agent "laptop"']);

    await t.call('POST', `${BASE}/enable/laptop`, { body: { policyId, durationMinutes: 30 } });
    const pushed = await push({ packageName: '@acme/hello' });
    assert.is(pushed.status, 201);
    const { session } = pushed.body;
    assert.equal(session, { ...session, label: 'laptop', packageName: '@acme/hello', action: 'install', policyId, status: 'requested' });
    assert.equal(pushed.body, {
      ok: true, session, label: 'laptop', action: 'install', packageName: '@acme/hello', message: 'Push install command "install" sent to agent "laptop"',
    });
    assert.equal(await refusal({ packageName: '@acme/other' }), [403, 'Package "@acme/other" is not allowed by the assigned policy']);
    assert.equal(await refusal({ packageName: '@acme/hello', action: 'uninstall' }), [403, 'Action "uninstall" is not allowed by the assigned policy']);
    const noPackage = await push({ action: 'install' });
    assert.equal([noPackage.status, noPackage.body.details.issues], [400, [{ path: 'packageName', message: 'packageName is required for install, update, and uninstall actions' }]]);
    const check = await push({ action: 'check-prerequisites' });
    assert.equal([check.status, check.body.packageName, check.body.session.packageName], [201, null, null], 'check-prerequisites names no package');

    clock.advance(30 * 60_000);
    assert.equal(await refusal({ packageName: '@acme/hello' }), [403, 'Push install access not enabled for agent "laptop"'], 'the window expired');

    const sessions = (await t.call('GET', `${BASE}/sessions`)).body.sessions;
    assert.equal(sessions.map((x: { packageName: string | null }) => x.packageName), [null, '@acme/hello'], 'refused pushes are not sessions');
    assert.equal((await t.call('GET', `${BASE}/sessions?label=other`)).body, { sessions: [] });
  } finally {
    await t.close();
  }
});

s('empty lists allow any action, and any package under plugins.allowedScopes', async () => {
  const { t } = await setUp();
  try {
    await t.call('POST', `${BASE}/policies`, { body: { name: 'open', allowedActions: [] } });
    await t.call('PATCH', `${BASE}/config`, { body: { enabled: true } });
    await t.call('POST', `${BASE}/enable/laptop`, { body: { policyId: 'open' } });
    const push = (packageName: string, action = 'uninstall') => t.call('POST', `${BASE}/laptop`, { body: { packageName, action } });
    assert.is((await push('@acme/anything')).status, 201);
    assert.is((await push('@other/thing')).body.error, 'Package "@other/thing" is not allowed by the assigned policy');
    assert.is((await push('unscoped')).status, 403);
  } finally {
    await t.close();
  }
});

s('agent-status tells the calling agent, and only it, whether push-install is on for it (ours and Portlama\'s names)', async () => {
  const { t, clock, policyId } = await setUp();
  await t.addAgent('desk', []);
  const status = (agent: string) => t.call('GET', `${BASE}/agent-status`, { as: { agent } });
  const offFor = (label: string) => ({
    label, enabled: false, expiresAt: null, policy: null, sessions: [], pushInstallEnabled: false, pushInstallEnabledUntil: null, pushInstallPolicy: null,
  });
  try {
    assert.equal((await status('laptop')).body, offFor('laptop'));
    await t.call('PATCH', `${BASE}/config`, { body: { enabled: true, defaultPolicy: policyId } });
    await t.call('POST', `${BASE}/enable/laptop`, { body: { durationMinutes: 5 } });
    await t.call('POST', `${BASE}/laptop`, { body: { packageName: '@acme/hello', action: 'update' } });
    const on = (await status('laptop')).body;
    assert.equal([on.enabled, on.expiresAt], [true, '2026-11-22T00:05:00.000Z']);
    assert.equal([on.pushInstallEnabled, on.pushInstallEnabledUntil, on.pushInstallPolicy], [true, '2026-11-22T00:05:00.000Z', policyId]);
    assert.equal(on.policy, { id: policyId, name: 'hello only', allowedPlugins: ['@acme/hello'], allowedActions: DEFAULT_ACTIONS });
    assert.equal(on.sessions.map((x: { action: string }) => x.action), ['update']);
    assert.equal((await status('desk')).body, offFor('desk'));
    assert.is((await t.call('GET', `${BASE}/agent-status`)).body.error, 'Agent certificate label required');

    await t.call('PATCH', `${BASE}/config`, { body: { enabled: false } });
    assert.is((await status('laptop')).body.enabled, false, 'the switch wins');
    await t.call('PATCH', `${BASE}/config`, { body: { enabled: true } });
    clock.advance(5 * 60_000);
    assert.is((await status('laptop')).body.pushInstallEnabled, false, 'expired');
  } finally {
    await t.close();
  }
});

s('the audit list keeps the newest sessions', async () => {
  const { t, policyId } = await setUp();
  try {
    await t.call('PATCH', `${BASE}/config`, { body: { enabled: true } });
    await t.call('POST', `${BASE}/enable/laptop`, { body: { policyId } });
    // a full list written at once, as that many pushes would leave it (a thousand pushes through the
    // service, each a write of the whole list, cost a second and check no more than the pushes past
    // the cap below do)
    await t.services.store.pushSessions.edit((draft) => {
      for (let i = 0; i < MAX_PUSH_SESSIONS - 1; i++) draft.put({ id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, label: 'laptop', packageName: '@acme/hello', action: 'install', policyId, status: 'requested', createdAt: T0 });
    });
    // the list's last free place, then one past the cap: the oldest goes
    for (let i = 0; i < 2; i++) await t.services.pushInstall.push('laptop', { packageName: '@acme/hello', action: 'install' });
    assert.is(t.services.pushInstall.sessions().length, MAX_PUSH_SESSIONS);
    assert.not.ok(t.services.pushInstall.sessions().some((x) => x.id.endsWith('000000000000')), 'the oldest was dropped at the cap');
    const first = t.services.pushInstall.sessions().at(-1)!;
    await t.services.pushInstall.push('laptop', { packageName: '@acme/hello', action: 'update' });
    const sessions = t.services.pushInstall.sessions();
    assert.is(sessions.length, MAX_PUSH_SESSIONS);
    assert.is(sessions[0]!.action, 'update');
    assert.not.ok(sessions.some((x) => x.id === first.id), 'the oldest was dropped');
  } finally {
    await t.close();
  }
});

s.run();
