// Issue 17: push-install — a switch, policies, per-agent windows that expire, every push recorded,
// and agent-status for the calling agent.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_PUSH_SESSIONS } from '../../../lib/plugins/push-install.ts';
import { addAgent, completeOnboarding, makeTestApp, type TestApp } from '../../helpers/app.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';

const s = suite('push-install');
const BASE = '/api/plugins/push-install';

async function setUp(clock = new ManualClock()): Promise<{ t: TestApp; clock: ManualClock; policyId: string }> {
  const t = await makeTestApp({ clock });
  await completeOnboarding(t);
  await addAgent(t, 'laptop', []);
  const created = await t.call('POST', `${BASE}/policies`, { body: { name: 'hello only', allowedPlugins: ['@acme/hello'] } });
  assert.is(created.status, 201);
  return { t, clock, policyId: created.body.policy.id };
}

s('config: off by default, PATCH turns it on and names a default policy', async () => {
  const { t, policyId } = await setUp();
  try {
    assert.equal((await t.call('GET', `${BASE}/config`)).body, { enabled: false, defaultPolicyId: null });
    assert.equal((await t.call('PATCH', `${BASE}/config`, { body: { enabled: true, defaultPolicyId: policyId } })).body, {
      ok: true,
      config: { enabled: true, defaultPolicyId: policyId },
    });
    assert.equal((await t.call('GET', `${BASE}/config`)).body, { enabled: true, defaultPolicyId: policyId });
    assert.is((await t.call('PATCH', `${BASE}/config`, { body: { defaultPolicyId: 'nope' } })).body.error, "Policy 'nope' not found");
    assert.is((await t.call('PATCH', `${BASE}/config`, { body: {} })).status, 400);
    assert.is((await t.call('GET', `${BASE}/config`, { as: { agent: 'laptop' } })).status, 403);
  } finally {
    await t.close();
  }
});

s('policies: create with defaults, list, patch, delete (409 while in use)', async () => {
  const { t, policyId } = await setUp();
  try {
    const [policy] = (await t.call('GET', `${BASE}/policies`)).body.policies;
    assert.equal(policy, { ...policy, id: policyId, name: 'hello only', description: '', allowedPlugins: ['@acme/hello'], allowedActions: ['install', 'update'] });
    const patched = await t.call('PATCH', `${BASE}/policies/${policyId}`, { body: { allowedActions: ['install', 'uninstall'] } });
    assert.equal(patched.body.policy.allowedActions, ['install', 'uninstall']);
    assert.is(patched.body.policy.name, 'hello only');
    assert.is((await t.call('PATCH', `${BASE}/policies/missing`, { body: { name: 'x' } })).status, 404);
    assert.is((await t.call('POST', `${BASE}/policies`, { body: { name: 'bad', allowedPlugins: ['Not A Name'] } })).status, 400);

    await t.call('POST', `${BASE}/enable/laptop`, { body: { policyId } });
    const inUse = await t.call('DELETE', `${BASE}/policies/${policyId}`);
    assert.is(inUse.status, 409);
    assert.is(inUse.body.error, `Policy '${policyId}' is in use`);
    await t.call('DELETE', `${BASE}/enable/laptop`);
    assert.equal((await t.call('DELETE', `${BASE}/policies/${policyId}`)).body, { ok: true });
    assert.equal((await t.call('GET', `${BASE}/policies`)).body, { policies: [] });
  } finally {
    await t.close();
  }
});

s('a push needs the switch, an unexpired window for the agent, and its policy; each one is recorded', async () => {
  const { t, clock, policyId } = await setUp();
  const push = (body: unknown) => t.call('POST', `${BASE}/laptop`, { body });
  try {
    assert.is((await push({ packageName: '@acme/hello' })).body.error, 'Push install is disabled');
    await t.call('PATCH', `${BASE}/config`, { body: { enabled: true } });
    const closed = await push({ packageName: '@acme/hello' });
    assert.is(closed.status, 403);
    assert.is(closed.body.error, "Push install is not enabled for agent 'laptop'");

    assert.is((await t.call('POST', `${BASE}/enable/laptop`, { body: {} })).body.error, 'A policyId is required: no default policy is set');
    assert.is((await t.call('POST', `${BASE}/enable/ghost`, { body: { policyId } })).body.error, "Agent 'ghost' not found");
    const opened = await t.call('POST', `${BASE}/enable/laptop`, { body: { policyId, durationMinutes: 30 } });
    assert.equal(opened.body, { ok: true, label: 'laptop', policyId, enabledAt: '2026-11-22T00:00:00.000Z', expiresAt: '2026-11-22T00:30:00.000Z' });

    const pushed = await push({ packageName: '@acme/hello' });
    assert.is(pushed.status, 201);
    assert.equal(pushed.body.session, { ...pushed.body.session, label: 'laptop', packageName: '@acme/hello', action: 'install', policyId, status: 'requested' });
    const other = await push({ packageName: '@acme/other' });
    assert.is(other.status, 403);
    assert.is(other.body.error, "Policy 'hello only' does not allow install of @acme/other");
    assert.is((await push({ packageName: '@acme/hello', action: 'uninstall' })).body.error, "Policy 'hello only' does not allow uninstall of @acme/hello");

    clock.advance(30 * 60_000);
    assert.is((await push({ packageName: '@acme/hello' })).body.error, "Push install is not enabled for agent 'laptop'", 'the window expired');

    const sessions = (await t.call('GET', `${BASE}/sessions`)).body.sessions;
    assert.equal(sessions.map((x: { packageName: string }) => x.packageName), ['@acme/hello'], 'refused pushes are not sessions');
    assert.equal((await t.call('GET', `${BASE}/sessions?label=other`)).body, { sessions: [] });
  } finally {
    await t.close();
  }
});

s('agent-status tells the calling agent, and only it, whether push-install is on for it', async () => {
  const { t, clock, policyId } = await setUp();
  await addAgent(t, 'desk', []);
  const status = (agent: string) => t.call('GET', `${BASE}/agent-status`, { as: { agent } });
  try {
    assert.equal((await status('laptop')).body, { label: 'laptop', enabled: false, expiresAt: null, policy: null, sessions: [] });
    await t.call('PATCH', `${BASE}/config`, { body: { enabled: true, defaultPolicyId: policyId } });
    await t.call('POST', `${BASE}/enable/laptop`, { body: { durationMinutes: 5 } });
    await t.call('POST', `${BASE}/laptop`, { body: { packageName: '@acme/hello', action: 'update' } });
    const on = (await status('laptop')).body;
    assert.is(on.enabled, true);
    assert.is(on.expiresAt, '2026-11-22T00:05:00.000Z');
    assert.equal(on.policy, { id: policyId, name: 'hello only', allowedPlugins: ['@acme/hello'], allowedActions: ['install', 'update'] });
    assert.equal(on.sessions.map((x: { action: string }) => x.action), ['update']);
    assert.equal((await status('desk')).body, { label: 'desk', enabled: false, expiresAt: null, policy: null, sessions: [] });
    assert.is((await t.call('GET', `${BASE}/agent-status`)).body.error, 'Agent certificate label required');

    await t.call('PATCH', `${BASE}/config`, { body: { enabled: false } });
    assert.is((await status('laptop')).body.enabled, false, 'the switch wins');
    await t.call('PATCH', `${BASE}/config`, { body: { enabled: true } });
    clock.advance(5 * 60_000);
    assert.is((await status('laptop')).body.enabled, false, 'expired');
  } finally {
    await t.close();
  }
});

s('the audit list keeps the newest sessions', async () => {
  const { t, policyId } = await setUp();
  try {
    await t.call('PATCH', `${BASE}/config`, { body: { enabled: true } });
    await t.call('POST', `${BASE}/enable/laptop`, { body: { policyId } });
    for (let i = 0; i <= MAX_PUSH_SESSIONS; i++) await t.services.pushInstall.push('laptop', { packageName: '@acme/hello', action: 'install' });
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
