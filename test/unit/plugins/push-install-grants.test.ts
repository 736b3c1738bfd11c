// GET /api/plugins/push-install/grants: the push-install windows open now, one per agent label,
// served from cached bytes that must not outlive a change or the soonest window's end.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import grantsRoute from '../../../handlers/plugins/push-install/grants/list.ts';
import { createTestApp, type TestApp } from '../../../lib/testing.ts';
import { ManualClock } from '../../helpers/manual-clock.ts';

interface Ctx {
  t: TestApp;
  clock: ManualClock;
  policyId: string;
}
const s = suite<Ctx>('push-install grants', {} as Ctx);
const BASE = '/api/plugins/push-install';
const MINUTE = 60_000;

s.before.each(async (ctx) => {
  ctx.clock = new ManualClock();
  ctx.t = await createTestApp({ clock: ctx.clock });
  await ctx.t.completeOnboarding();
  await ctx.t.addAgent('laptop', []);
  await ctx.t.addAgent('desk', []);
  const created = await ctx.t.call('POST', `${BASE}/policies`, { body: { name: 'hello only', allowedPlugins: ['@acme/hello'] } });
  assert.is(created.status, 201);
  ctx.policyId = created.body.policy.id;
  await ctx.t.call('PATCH', `${BASE}/config`, { body: { enabled: true } });
});
s.after.each(({ t }) => t.close());

async function grants(t: TestApp): Promise<unknown[]> {
  const answer = await t.call('GET', `${BASE}/grants`);
  assert.is(answer.status, 200);
  assert.is(answer.response.headers.get('content-type'), 'application/json; charset=utf-8');
  const parsed = grantsRoute.response!.schema.safeParse(answer.body);
  assert.ok(parsed.success, `the answer has its documented shape: ${JSON.stringify(answer.body)}`);
  return answer.body.grants;
}

/** The enable answer without `ok` and Portlama's names for its fields: what the list reports of a window. */
async function open(t: TestApp, label: string, body: Record<string, unknown>) {
  const { status, body: answer } = await t.call('POST', `${BASE}/enable/${label}`, { body });
  assert.is(status, 200);
  const { ok: _, pushInstallEnabledUntil, pushInstallPolicy, ...grant } = answer;
  assert.equal([pushInstallEnabledUntil, pushInstallPolicy], [grant.expiresAt, grant.policyId]);
  return grant;
}

s('no window open: an empty list', async ({ t }) => {
  assert.equal(await grants(t), []);
});

s('an opened window is listed as enable answered it, by agent label; re-enabling replaces it', async ({ t, clock, policyId }) => {
  const laptop = await open(t, 'laptop', { policyId, durationMinutes: 30 });
  assert.equal(laptop, { label: 'laptop', policyId, enabledAt: '2026-11-22T00:00:00.000Z', expiresAt: '2026-11-22T00:30:00.000Z' });
  assert.equal(await grants(t), [laptop]);
  clock.advance(MINUTE);
  const desk = await open(t, 'desk', { policyId, durationMinutes: 5 });
  assert.equal(await grants(t), [desk, laptop], 'by label, not by time');
  const reopened = await open(t, 'laptop', { policyId, durationMinutes: 120 });
  assert.equal(await grants(t), [desk, reopened], 'one entry per label');
  assert.is((reopened as { expiresAt: string }).expiresAt, '2026-11-22T02:01:00.000Z');
});

s('an ended window leaves the list', async ({ t, policyId }) => {
  await open(t, 'laptop', { policyId });
  const desk = await open(t, 'desk', { policyId });
  assert.is((await grants(t)).length, 2);
  assert.equal((await t.call('DELETE', `${BASE}/enable/laptop`)).body, { ok: true, label: 'laptop' });
  assert.equal(await grants(t), [desk]);
});

s('an expired window leaves the list at its end, although the record stays until replaced or ended', async ({ t, clock, policyId }) => {
  const laptop = await open(t, 'laptop', { policyId, durationMinutes: 60 });
  const desk = await open(t, 'desk', { policyId, durationMinutes: 10 });
  assert.equal(await grants(t), [desk, laptop]);
  clock.advance(10 * MINUTE - 1);
  assert.equal(await grants(t), [desk, laptop], 'open up to its last millisecond');
  clock.advance(1);
  assert.equal(await grants(t), [laptop], 'the cached answer ends with the soonest window');
  assert.ok(t.services.store.pushGrants.get('desk'), 'nothing was deleted to hide it');
  clock.advance(50 * MINUTE);
  assert.equal(await grants(t), []);
  const reopened = await open(t, 'desk', { policyId, durationMinutes: 5 });
  assert.equal(await grants(t), [reopened]);
});

s('the answer is serialized once while nothing changes', async ({ t, policyId }) => {
  await open(t, 'laptop', { policyId });
  const first = t.services.pushInstall.grantsJson();
  assert.is(t.services.pushInstall.grantsJson(), first, 'the same bytes');
  await t.call('DELETE', `${BASE}/enable/laptop`);
  assert.is.not(t.services.pushInstall.grantsJson(), first, 'a change makes new bytes');
});

s('admin only: refused to agents, with or without a window of their own', async ({ t, policyId }) => {
  await open(t, 'laptop', { policyId });
  const refused = await t.call('GET', `${BASE}/grants`, { as: { agent: 'laptop' } });
  assert.is(refused.status, 403);
  assert.equal(refused.body, { error: 'Insufficient certificate scope' });
  assert.equal((await t.call('GET', `${BASE}/grants`, { as: 'none' })).body, { error: 'mTLS certificate required' });
});

s.run();
