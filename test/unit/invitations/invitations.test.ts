// Invitations: the admin routes (shapes after Portlama's) and the public invite routes, with
// Portlama's 400/404/410 answers, the single-use race and the per-address rate limit.
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { storedText } from '../../helpers/store-files.ts';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ManualClock } from '../../helpers/manual-clock.ts';
import { callerHeaders } from '../../../lib/testing.ts';
import { portalUsers, userApp, newUser, DOMAIN, type UserTestApp } from '../users/support.ts';

const s = suite('invitations: admin and public routes');
let t: UserTestApp;
let clock: ManualClock;
s.before.each(async () => {
  clock = new ManualClock(Date.now());
  t = await userApp({ clock, durable: true });
});
s.after.each(async () => {
  await t.close();
});

const DAY = 24 * 60 * 60 * 1000;
const invite = (username = 'dana', extra: Record<string, unknown> = {}) =>
  t.call('POST', '/api/invitations', { body: { username, email: `${username}@example.test`, ...extra } });

/** A public call from a client address, as the node edge sees it behind nginx (one trusted hop). */
function fromAddress(method: string, path: string, address: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { ...callerHeaders('none'), 'x-forwarded-for': address };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const request = new Request(`http://panel.test${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return t.app.handle(request, { peer: '127.0.0.1' });
}

s('POST: 201 {ok, invitation, inviteUrl, token}; 7 days by default; only the hash is stored (0600)', async () => {
  const res = await invite('dana', { displayname: 'Dana D', groups: ['dev'] });
  assert.is(res.status, 201);
  const { ok, invitation, inviteUrl, token } = res.body;
  assert.is(ok, true);
  assert.match(token, /^[0-9a-f]{64}$/);
  assert.is(inviteUrl, `https://panel.${DOMAIN}/invite/${token}`);
  assert.equal(Object.keys(invitation).sort(), ['acceptedAt', 'createdAt', 'displayname', 'email', 'expiresAt', 'groups', 'id', 'status', 'used', 'username']);
  assert.equal([invitation.username, invitation.email, invitation.displayname, invitation.groups, invitation.status, invitation.used], ['dana', 'dana@example.test', 'Dana D', ['dev'], 'pending', false]);
  assert.is(Date.parse(invitation.expiresAt) - Date.parse(invitation.createdAt), 7 * DAY);
  const collection = t.services.store.invitations;
  assert.not.ok((await storedText(collection)).includes(token), 'the token is never stored, in the journal or the snapshot');
  await collection.compact();
  const file = join(t.services.store.dataDir, 'invitations.json');
  assert.is(JSON.parse(await readFile(file, 'utf8'))[0].tokenHash, createHash('sha256').update(token).digest('hex'));
  assert.is((await stat(file)).mode & 0o777, 0o600);
  const short = await invite('erin', { expiresInDays: 1 });
  assert.is(Date.parse(short.body.invitation.expiresAt) - Date.parse(short.body.invitation.createdAt), DAY);
  assert.is(short.body.invitation.displayname, 'erin', 'display name defaults to the username');
});

s('POST: 409 for an existing user or a pending invitation; 400 for bad input', async () => {
  await t.call('POST', '/api/users', { body: newUser('alice') });
  assert.equal((await invite('alice')).body, { error: 'Username already exists' });
  assert.is((await invite('dana')).status, 201);
  const again = await invite('dana');
  assert.is(again.status, 409);
  assert.equal(again.body, { error: 'A pending invitation already exists for this username' });
  for (const body of [{ username: 'A', email: 'a@x.io' }, { username: 'ok', email: 'nope' }, { username: 'ok', email: 'a@x.io', expiresInDays: 0 }, { username: 'ok', email: 'a@x.io', expiresInDays: 31 }]) {
    const res = await t.call('POST', '/api/invitations', { body });
    assert.is(res.status, 400, JSON.stringify(body));
    assert.is(res.body.error, 'Validation failed');
  }
  clock.jump(8 * DAY);
  assert.is((await invite('dana')).status, 201, 'an expired invitation does not block a new one');
});

s('GET lists newest first with status; never a token or its hash', async () => {
  const first = (await invite('ann')).body;
  clock.advance(1000);
  const second = (await invite('ben', { expiresInDays: 1 })).body;
  clock.advance(1000);
  await invite('cat');
  await t.call('POST', `/api/invite/${first.token}/accept`, { as: 'none', body: { password: 'ann-password' } });
  clock.jump(DAY);
  const res = await t.call('GET', '/api/invitations');
  assert.is(res.status, 200);
  assert.equal(res.body.invitations.map((i: { username: string; status: string }) => [i.username, i.status]), [['cat', 'pending'], ['ben', 'expired'], ['ann', 'accepted']]);
  const text = JSON.stringify(res.body);
  assert.not.ok(text.includes(first.token) || text.includes(second.token) || text.includes('tokenHash'));
  assert.ok(res.body.invitations[2].acceptedAt);
});

s('DELETE: 200 {ok}, then the link is dead; 404 Invitation not found', async () => {
  const { invitation, token } = (await invite('dana')).body;
  const res = await t.call('DELETE', `/api/invitations/${invitation.id}`);
  assert.is(res.status, 200);
  assert.equal(res.body, { ok: true });
  assert.equal((await t.call('DELETE', `/api/invitations/${invitation.id}`)).body, { error: 'Invitation not found' });
  assert.equal((await t.call('DELETE', '/api/invitations/00000000-0000-0000-0000-000000000000')).body, { error: 'Invitation not found' });
  const malformed = await t.call('DELETE', '/api/invitations/not-a-uuid');
  assert.equal([malformed.status, malformed.body.error], [400, 'Validation failed'], 'not a UUID: Portlama validates the id first');
  assert.is((await t.call('GET', `/api/invite/${token}`, { as: 'none' })).status, 404);
});

s('public GET: no certificate needed; {username, email, expiresAt}', async () => {
  const { token, invitation } = (await invite('dana')).body;
  const res = await t.call('GET', `/api/invite/${token}`, { as: 'none' });
  assert.is(res.status, 200);
  assert.equal(res.body, { username: 'dana', email: 'dana@example.test', expiresAt: invitation.expiresAt });
});

s("malformed 400, unknown 404, used 410, expired 410: Portlama's answers on both public routes", async () => {
  const used = (await invite('ann')).body.token;
  const expired = (await invite('ben', { expiresInDays: 1 })).body.token;
  assert.is((await t.call('POST', `/api/invite/${used}/accept`, { as: 'none', body: { password: 'ann-password' } })).status, 200);
  clock.jump(DAY);
  const cases: [token: string, status: number, error: string][] = [
    ['ab'.repeat(32), 404, 'Invitation not found'],
    [used, 410, 'This invitation has already been used'],
    [expired, 410, 'This invitation has expired'],
  ];
  for (const [token, status, error] of cases) {
    for (const res of [
      await t.call('GET', `/api/invite/${token}`, { as: 'none' }),
      await t.call('POST', `/api/invite/${token}/accept`, { as: 'none', body: { password: 'a-password' } }),
    ]) assert.equal([res.status, res.body], [status, { error }], token);
  }
  // not the token's form (64 lowercase hex): the spec's first rule, before any lookup
  for (const token of ['x', 'ab'.repeat(31), 'AB'.repeat(32), 'ab'.repeat(33), `${'ab'.repeat(31)}zz`]) {
    for (const res of [
      await t.call('GET', `/api/invite/${token}`, { as: 'none' }),
      await t.call('POST', `/api/invite/${token}/accept`, { as: 'none', body: { password: 'a-password' } }),
    ]) {
      assert.is(res.status, 400, token);
      assert.is(res.body.error, 'Validation failed');
      assert.equal(res.body.details.issues, [{ path: 'token', message: 'must be 64 lowercase hex characters' }]);
    }
  }
});

s('a used invitation stays 410 after it expires (used is checked first, as Portlama does)', async () => {
  const { token } = (await invite('ann', { expiresInDays: 1 })).body;
  assert.is((await t.call('POST', `/api/invite/${token}/accept`, { as: 'none', body: { password: 'ann-password' } })).status, 200);
  clock.jump(2 * DAY);
  assert.equal((await t.call('GET', `/api/invite/${token}`, { as: 'none' })).body, { error: 'This invitation has already been used' });
});

s('a hit among many stored tokens is found, a near miss is 404 (the lookup itself: unit/lib/token-hash)', async () => {
  const tokens = [];
  for (const name of ['ann', 'ben', 'cat', 'dan']) tokens.push((await invite(name)).body.token as string);
  assert.equal((await t.call('GET', `/api/invite/${tokens[2]}`, { as: 'none' })).body.username, 'cat');
  const nearMiss = `${tokens[3]!.slice(0, -1)}${tokens[3]!.endsWith('0') ? '1' : '0'}`;
  assert.equal((await t.call('GET', `/api/invite/${nearMiss}`, { as: 'none' })).body, { error: 'Invitation not found' });
});

s('accept: creates the portal user (bcrypt, groups, display name), restarts the portal, enrolls TOTP', async () => {
  const { token } = (await invite('dana', { displayname: 'Dana D', groups: ['dev'] })).body;
  const res = await t.call('POST', `/api/invite/${token}/accept`, { as: 'none', body: { password: 'dana-password' } });
  assert.is(res.status, 200);
  assert.equal(Object.keys(res.body), ['ok', 'username', 'loginUrl', 'totpUri']);
  assert.equal([res.body.ok, res.body.username, res.body.loginUrl], [true, 'dana', `https://auth.${DOMAIN}/`]);
  assert.match(res.body.totpUri, new RegExp(`^otpauth://totp/${DOMAIN}:dana\\?secret=[A-Z2-7]{32}&issuer=${DOMAIN}&algorithm=SHA1&digits=6&period=30$`));
  const [user] = await portalUsers(t);
  assert.equal([user!.username, user!.displayname, user!.email, user!.groups], ['dana', 'Dana D', 'dana@example.test', ['dev']]);
  assert.ok(await bcrypt.compare('dana-password', user!.password));
  assert.is(t.sandbox.eventsOf('authPortal.restart').length, 1);
  assert.is(t.sandbox.eventsOf('authPortal.setTotp').length, 1);
  assert.is(t.services.store.invitations.value[0]!.used, true);
});

s('accept: the password rules of POST /api/users (400 Validation failed)', async () => {
  const { token } = (await invite('dana')).body;
  for (const password of ['short', 'p'.repeat(129), undefined]) {
    const res = await t.call('POST', `/api/invite/${token}/accept`, { as: 'none', body: { password } });
    assert.is(res.status, 400);
    assert.is(res.body.error, 'Validation failed');
  }
  assert.is((await t.call('GET', `/api/invite/${token}`, { as: 'none' })).status, 200, 'still usable');
});

s('accept: when the user cannot be made, the invitation is given back', async () => {
  const { token } = (await invite('dana')).body;
  t.sandbox.failNext('authPortal.writeUsers', 'disk full');
  const failed = await t.call('POST', `/api/invite/${token}/accept`, { as: 'none', body: { password: 'dana-password' } });
  assert.is(failed.status, 500);
  assert.is(failed.body.error, 'Failed to update user database');
  assert.is((await t.call('GET', `/api/invite/${token}`, { as: 'none' })).status, 200);
  await t.call('POST', '/api/users', { body: newUser('dana') });
  const taken = await t.call('POST', `/api/invite/${token}/accept`, { as: 'none', body: { password: 'dana-password' } });
  assert.is(taken.status, 409);
  assert.equal(taken.body, { error: 'Username already exists' });
  assert.is(t.services.store.invitations.value[0]!.used, false);
});

s('accept: a failed TOTP enrollment leaves the user made, totpUri null, and is logged', async () => {
  const { token } = (await invite('dana')).body;
  t.sandbox.failNext('authPortal.setTotp', 'storage locked');
  const res = await t.call('POST', `/api/invite/${token}/accept`, { as: 'none', body: { password: 'dana-password' } });
  assert.is(res.status, 200);
  assert.is(res.body.totpUri, null);
  assert.is((await portalUsers(t)).length, 1);
  assert.ok(t.services.log.recent(50).some((e) => e.level === 'warn' && e.message.includes('storage locked')));
});

s('20 concurrent accepts of one token create exactly one user; the rest are told it is used', async () => {
  const { token } = (await invite('dana')).body;
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => fromAddress('POST', `/api/invite/${token}/accept`, `198.51.100.${i + 1}`, { password: `password-${i}` })));
  const statuses = answers.map((r) => r.status);
  assert.is(statuses.filter((c) => c === 200).length, 1, String(statuses));
  assert.is(statuses.filter((c) => c === 410).length, 19, String(statuses));
  assert.equal((await portalUsers(t)).map((u) => u.username), ['dana']);
});

s('10 tries a minute per client address (429), counted across both public routes', async () => {
  const { token } = (await invite('dana')).body;
  for (let i = 0; i < 5; i++) assert.is((await fromAddress('GET', `/api/invite/${'0'.repeat(64)}`, '198.51.100.7')).status, 404);
  for (let i = 0; i < 5; i++) assert.is((await fromAddress('POST', `/api/invite/${'0'.repeat(64)}/accept`, '198.51.100.7', { password: 'guessing-1' })).status, 404);
  const limited = await fromAddress('GET', `/api/invite/${token}`, '198.51.100.7');
  assert.is(limited.status, 429);
  // when to try again, in the body's details and in the standard header
  const body = await limited.json();
  assert.equal(body, { error: 'Rate limit exceeded', details: { retryAfter: body.details.retryAfter } });
  assert.ok(body.details.retryAfter >= 1 && body.details.retryAfter <= 60, String(body.details.retryAfter));
  assert.is(limited.headers.get('retry-after'), String(body.details.retryAfter));
  assert.is((await fromAddress('GET', `/api/invite/${token}`, '198.51.100.8')).status, 200, 'another address is not limited');
  clock.advance(60_000);
  assert.is((await fromAddress('GET', `/api/invite/${token}`, '198.51.100.7')).status, 200, 'a new minute');
});

s('access: the admin routes need an admin certificate; the public ones none', async () => {
  for (const [method, path] of [['GET', '/api/invitations'], ['POST', '/api/invitations'], ['DELETE', '/api/invitations/x']] as const) {
    const body = method === 'GET' ? undefined : {};
    assert.is((await t.call(method, path, { as: { agent: 'laptop' }, body })).status, 403);
    assert.is((await t.call(method, path, { as: 'none', body })).status, 403);
  }
  assert.is((await t.call('GET', `/api/invite/${'0'.repeat(64)}`, { as: 'none' })).status, 404);
});

s.run();
