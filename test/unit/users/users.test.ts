// The five users routes with the spec's exact messages, against the sandbox portal.
import { readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { Secret, TOTP, URI } from 'otpauth';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sandboxPaths } from '../../../lib/system/sandbox-system.ts';
import { UserService } from '../../../lib/users/service.ts';
import { createTestApp } from '../../../lib/testing.ts';
import { DOMAIN, newUser, portalUsers, userApp, withCheapHashing, type UserTestApp } from './support.ts';

const s = suite('users: routes, messages, portal restarts');
let t: UserTestApp;
s.before.each(async () => {
  t = await userApp();
});
s.after.each(async () => {
  await t.close();
});

const usersFile = () => join(sandboxPaths(t.services.store.dataDir).authelia, 'users_database.yml');
const restarts = () => t.sandbox.eventsOf('authPortal.restart').length;

s('POST creates: 201 {ok, user} without the hash; bcrypt $2b$ in a YAML file Authelia\'s group may read (0640); the portal restarts', async () => {
  const res = await t.call('POST', '/api/users', { body: newUser('alice', { groups: ['dev'] }) });
  assert.is(res.status, 201);
  assert.equal(res.body, { ok: true, user: { username: 'alice', displayname: 'User alice', email: 'alice@example.test', groups: ['dev'] } });
  const [stored] = await portalUsers(t);
  assert.ok(stored!.password.startsWith('$2b$'), stored!.password.slice(0, 4));
  assert.ok(await bcrypt.compare('pw-alice-secret', stored!.password));
  assert.is((await stat(usersFile())).mode & 0o7777, 0o640);
  const text = await readFile(usersFile(), 'utf8');
  assert.match(text, /^users:\n {2}alice:\n/m);
  assert.is(restarts(), 1);
  const noGroups = await t.call('POST', '/api/users', { body: newUser('bob') });
  assert.equal(noGroups.body.user.groups, []);
});

s('POST: 409 Username already exists, also for a user written by hand', async () => {
  await t.call('POST', '/api/users', { body: newUser('alice') });
  const dup = await t.call('POST', '/api/users', { body: newUser('alice') });
  assert.is(dup.status, 409);
  assert.equal(dup.body, { error: 'Username already exists' });
  await writeFile(usersFile(), (await readFile(usersFile(), 'utf8')) + `  # added by hand\n  zed:\n    displayname: Zed\n    password: "$2b$04$${'x'.repeat(53)}"\n    email: zed@example.test\n    groups: []\n`);
  assert.is((await t.call('POST', '/api/users', { body: newUser('zed') })).status, 409);
  assert.is(restarts(), 1, 'only the first create restarted the portal');
});

s('POST: the limits are validation failures with details.issues', async () => {
  const cases: [Record<string, unknown>, string][] = [
    [newUser('a'), 'username'],
    [newUser('x'.repeat(33)), 'username'],
    [newUser('Alice'), 'username'],
    [newUser('al ice'), 'username'],
    [newUser('alice', { displayname: '' }), 'displayname'],
    [newUser('alice', { displayname: 'd'.repeat(101) }), 'displayname'],
    [newUser('alice', { email: 'not-an-email' }), 'email'],
    [newUser('alice', { password: 'short' }), 'password'],
    [newUser('alice', { password: 'p'.repeat(129) }), 'password'],
    [newUser('alice', { groups: 'admins' }), 'groups'],
    [{ username: 'alice' }, 'displayname'],
  ];
  for (const [body, path] of cases) {
    const res = await t.call('POST', '/api/users', { body });
    assert.is(res.status, 400, JSON.stringify(body));
    assert.is(res.body.error, 'Validation failed');
    assert.ok(res.body.details.issues.some((i: { path: string }) => i.path === path), `${path}: ${JSON.stringify(res.body.details)}`);
  }
  // the edges pass
  assert.is((await t.call('POST', '/api/users', { body: newUser('ab', { password: 'p'.repeat(8), displayname: 'd' }) })).status, 201);
  assert.is((await t.call('POST', '/api/users', { body: newUser('a'.repeat(32), { password: 'p'.repeat(128), displayname: 'd'.repeat(100) }) })).status, 201);
  assert.is((await t.call('POST', '/api/users', { body: newUser('a_b-9') })).status, 201);
});

s('GET lists sorted by username, never a hash; the list follows hand edits', async () => {
  for (const name of ['carol', 'alice', 'bob']) await t.call('POST', '/api/users', { body: newUser(name) });
  const res = await t.call('GET', '/api/users');
  assert.is(res.status, 200);
  assert.equal(res.body.users.map((u: { username: string }) => u.username), ['alice', 'bob', 'carol']);
  assert.equal(Object.keys(res.body.users[0]).sort(), ['displayname', 'email', 'groups', 'username']);
  const text = await readFile(usersFile(), 'utf8');
  await writeFile(usersFile(), text.replace('displayname: User bob', 'displayname: Robert # renamed by hand'));
  const after = await t.call('GET', '/api/users');
  assert.is(after.body.users[1].displayname, 'Robert');
  assert.not.match(JSON.stringify(after.body), /\$2[aby]\$/);
});

s('PUT changes only the given fields; groups replaces the list; a new password is hashed', async () => {
  await t.call('POST', '/api/users', { body: newUser('alice', { groups: ['a', 'b'] }) });
  const before = (await portalUsers(t))[0]!;
  const res = await t.call('PUT', '/api/users/alice', { body: { groups: ['c'] } });
  assert.is(res.status, 200);
  assert.equal(res.body, { ok: true, user: { username: 'alice', displayname: 'User alice', email: 'alice@example.test', groups: ['c'] } });
  assert.is((await portalUsers(t))[0]!.password, before.password, 'password unchanged');
  await t.call('PUT', '/api/users/alice', { body: { password: 'a-new-password', email: 'new@example.test' } });
  const after = (await portalUsers(t))[0]!;
  assert.ok(await bcrypt.compare('a-new-password', after.password));
  assert.is(after.email, 'new@example.test');
  assert.equal(after.groups, ['c']);
  assert.is((await t.call('PUT', '/api/users/alice', { body: { groups: [] } })).body.user.groups.length, 0);
  assert.is(restarts(), 4);
});

s('PUT: 400 with no fields or invalid values, 404 User not found', async () => {
  await t.call('POST', '/api/users', { body: newUser('alice') });
  for (const body of [{}, { displayname: '' }, { email: 'x' }, { password: 'short' }, { username: 'bob' }]) {
    const res = await t.call('PUT', '/api/users/alice', { body });
    assert.is(res.status, 400, JSON.stringify(body));
    assert.is(res.body.error, 'Validation failed');
  }
  const missing = await t.call('PUT', '/api/users/nobody', { body: { displayname: 'N' } });
  assert.is(missing.status, 404);
  assert.equal(missing.body, { error: 'User not found' });
});

s('DELETE: 200 {ok}; 404 User not found; 400 Cannot delete the last user', async () => {
  await t.call('POST', '/api/users', { body: newUser('alice') });
  await t.call('POST', '/api/users', { body: newUser('bob') });
  const res = await t.call('DELETE', '/api/users/bob');
  assert.is(res.status, 200);
  assert.equal(res.body, { ok: true });
  assert.equal((await portalUsers(t)).map((u) => u.username), ['alice']);
  assert.equal((await t.call('DELETE', '/api/users/bob')).body, { error: 'User not found' });
  const last = await t.call('DELETE', '/api/users/alice');
  assert.is(last.status, 400);
  assert.equal(last.body, { error: 'Cannot delete the last user' });
  assert.is(restarts(), 3);
});

s('two concurrent deletes of the last two users leave one', async () => {
  await t.call('POST', '/api/users', { body: newUser('alice') });
  await t.call('POST', '/api/users', { body: newUser('bob') });
  const results = await Promise.all([t.call('DELETE', '/api/users/alice'), t.call('DELETE', '/api/users/bob')]);
  assert.equal(results.map((r) => r.status).sort(), [200, 400]);
  assert.is((await portalUsers(t)).length, 1);
});

s('concurrent creates of one name make one user; of different names, all of them', async () => {
  const same = await Promise.all([1, 2, 3, 4].map(() => t.call('POST', '/api/users', { body: newUser('alice') })));
  assert.equal(same.map((r) => r.status).sort(), [201, 409, 409, 409]);
  const many = await Promise.all(['b1', 'b2', 'b3', 'b4', 'b5'].map((n) => t.call('POST', '/api/users', { body: newUser(n) })));
  assert.ok(many.every((r) => r.status === 201));
  assert.equal((await portalUsers(t)).map((u) => u.username), ['alice', 'b1', 'b2', 'b3', 'b4', 'b5']);
});

s('reset-totp: the spec URI, a new secret each time, stored by the portal, no restart', async () => {
  await t.call('POST', '/api/users', { body: newUser('alice') });
  const before = restarts();
  const first = await t.call('POST', '/api/users/alice/reset-totp');
  assert.is(first.status, 200);
  assert.equal(Object.keys(first.body), ['ok', 'totpUri']);
  assert.is(first.body.ok, true);
  const uri: string = first.body.totpUri;
  assert.match(uri, new RegExp(`^otpauth://totp/${DOMAIN}:alice\\?secret=([A-Z2-7]{32})&issuer=${DOMAIN}&algorithm=SHA1&digits=6&period=30$`));
  const totp = URI.parse(uri) as TOTP;
  assert.is(totp.secret.base32, uri.match(/secret=([A-Z2-7]+)/)![1]);
  const stored = JSON.parse(await readFile(join(sandboxPaths(t.services.store.dataDir).authelia, 'totp.json'), 'utf8'));
  assert.is(stored.alice, totp.secret.base32);
  const second = await t.call('POST', '/api/users/alice/reset-totp');
  assert.is.not(second.body.totpUri, uri);
  assert.is(restarts(), before, 'a TOTP reset does not restart the portal');
  assert.ok(new Secret({ size: 20 }).base32.length === 32);
});

s('reset-totp: 404 User not found; 500 Failed to write TOTP configuration', async () => {
  await t.call('POST', '/api/users', { body: newUser('alice') });
  assert.equal((await t.call('POST', '/api/users/nobody/reset-totp')).body, { error: 'User not found' });
  t.sandbox.failNext('authPortal.setTotp', 'storage is locked');
  const failed = await t.call('POST', '/api/users/alice/reset-totp');
  assert.is(failed.status, 500);
  assert.is(failed.body.error, 'Failed to write TOTP configuration');
});

s('500s: Failed to read user database (every route), Failed to update user database', async () => {
  await t.call('POST', '/api/users', { body: newUser('alice') });
  await t.call('POST', '/api/users', { body: newUser('bob') });
  const calls: [string, string, unknown?][] = [
    ['GET', '/api/users'],
    ['POST', '/api/users', newUser('carol')],
    ['PUT', '/api/users/alice', { displayname: 'A' }],
    ['DELETE', '/api/users/bob'],
    ['POST', '/api/users/alice/reset-totp'],
  ];
  for (const [method, path, body] of calls) {
    t.sandbox.failNext('authPortal.readUsers', 'disk error');
    const res = await t.call(method, path, { body });
    assert.is(res.status, 500, `${method} ${path}`);
    assert.is(res.body.error, 'Failed to read user database', `${method} ${path}`);
  }
  for (const [method, path, body] of calls.slice(1, 4)) {
    t.sandbox.failNext('authPortal.writeUsers', 'disk full');
    const res = await t.call(method, path, { body });
    assert.is(res.status, 500, `${method} ${path}`);
    assert.is(res.body.error, 'Failed to update user database');
  }
  assert.equal((await portalUsers(t)).map((u) => [u.username, u.displayname]), [['alice', 'User alice'], ['bob', 'User bob']], 'nothing changed');
});

s('a broken hand edit answers 500 Failed to read user database, never overwrites the file', async () => {
  await t.call('POST', '/api/users', { body: newUser('alice') });
  await writeFile(usersFile(), 'users:\n  alice: [broken\n');
  assert.equal((await t.call('GET', '/api/users')).body.error, 'Failed to read user database');
  assert.is((await t.call('POST', '/api/users', { body: newUser('bob') })).status, 500);
  assert.is(await readFile(usersFile(), 'utf8'), 'users:\n  alice: [broken\n');
});

s('500 Failed to hash password (POST and PUT); nothing written', async () => {
  await t.call('POST', '/api/users', { body: newUser('alice') });
  const before = await portalUsers(t);
  t.services.users = new UserService({ ...t.services, hasher: { hash: async () => Promise.reject(new Error('worker died')), close: async () => {} } });
  const res = await t.call('POST', '/api/users', { body: newUser('bob') });
  assert.is(res.status, 500);
  assert.is(res.body.error, 'Failed to hash password');
  const put = await t.call('PUT', '/api/users/alice', { body: { password: 'long-enough', displayname: 'Changed' } });
  assert.is(put.status, 500);
  assert.is(put.body.error, 'Failed to hash password');
  assert.equal(await portalUsers(t), before, 'nothing written');
  assert.is((await t.call('PUT', '/api/users/alice', { body: { displayname: 'Changed' } })).status, 200, 'no password, no hash');
});

s('a failed portal restart is logged and the change still succeeds', async () => {
  t.sandbox.failNext('authPortal.restart', 'authelia exited with status 1');
  const res = await t.call('POST', '/api/users', { body: newUser('alice') });
  assert.is(res.status, 201);
  assert.equal((await portalUsers(t)).map((u) => u.username), ['alice']);
  const logged = t.services.log.recent(50).find((e) => e.level === 'warn' && e.message.includes('authelia exited with status 1'));
  assert.ok(logged, 'the failure is in the log');
});

s('no hash or password in responses or logs', async () => {
  await t.call('POST', '/api/users', { body: newUser('alice') });
  await t.call('PUT', '/api/users/alice', { body: { password: 'another-secret-pw' } });
  await t.call('POST', '/api/users/alice/reset-totp');
  const logs = JSON.stringify(t.services.log.recent(500));
  assert.not.match(logs, /\$2[aby]\$/);
  assert.not.ok(logs.includes('pw-alice-secret') || logs.includes('another-secret-pw'));
  assert.not.match(logs, /secret=/);
});

s('access: admin only; agents get 403; 503 before onboarding completes', async () => {
  const agent = await t.call('GET', '/api/users', { as: { agent: 'laptop' } });
  assert.is(agent.status, 403);
  assert.is((await t.call('GET', '/api/users', { as: 'none' })).status, 403);
  const fresh = withCheapHashing(await createTestApp());
  try {
    const gated = await fresh.call('GET', '/api/users');
    assert.is(gated.status, 503);
  } finally {
    await fresh.close();
  }
});

s.run();
