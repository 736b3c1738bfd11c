// The users and invitation routes on the host driver, with fake authelia and systemctl
// (test/fakes/bin): Authelia is not packaged and systemd is not PID 1 here.
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestApp, type TestApp } from '../../../lib/testing.ts';
import { FIRST_PORTAL_USER } from '../../helpers/portal-user.ts';
import { timed } from '../../helpers/timeout.ts';
import { startFakeHost, type FakeHost } from '../../infra/fake-host.ts';
import { withCheapHashing } from '../../unit/users/support.ts';

const s = suite('users and invitations on the host driver (fake authelia and systemctl)');
let dir = '';
let fakes: FakeHost;
let t: TestApp;

s.before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'relay-users-host-'));
  fakes = await startFakeHost(dir);
  t = withCheapHashing(await createTestApp({
    config: { system: { driver: 'host', ...fakes.config, acme: { configDir: join(dir, 'letsencrypt') }, pki: { dir: join(dir, 'pki') } } },
  }));
  await t.completeOnboarding('example.test');
  // the portal's first user, as provisioning makes it (the fake authelia, like the real one, needs one)
  await t.services.system.authPortal.install({ domain: 'example.test', users: [FIRST_PORTAL_USER] });
});

s.after(async () => {
  await t?.close();
  await fakes?.close();
  await rm(dir, { recursive: true, force: true });
});

const usersFile = () => join(dir, 'authelia', 'users_database.yml');

s('create: YAML users database (0640: Authelia\'s group reads it; bcrypt) and `systemctl restart authelia`', timed(15_000, async () => {
  const res = await t.call('POST', '/api/users', { body: { username: 'alice', displayname: 'Alice', email: 'alice@example.test', password: 'alice-password' } });
  assert.is(res.status, 201, JSON.stringify(res.body));
  const text = await readFile(usersFile(), 'utf8');
  assert.match(text, /^ {2}alice:\n {4}displayname: Alice\n/m);
  assert.ok(await bcrypt.compare('alice-password', text.match(/^ {2}alice:\n(?: {4}.*\n)*? {4}password: (\S+)/m)![1]!));
  assert.is((await stat(usersFile())).mode & 0o7777, 0o640);
  assert.equal((await fakes.calls('systemctl')).at(-1), ['restart', 'authelia']);
}));

s('reset-totp: the new secret goes to `authelia storage user totp generate`, no restart', timed(15_000, async () => {
  const restartsBefore = (await fakes.calls('systemctl')).filter((a) => a[0] === 'restart').length;
  const res = await t.call('POST', '/api/users/alice/reset-totp');
  assert.is(res.status, 200, JSON.stringify(res.body));
  const secret = (res.body.totpUri as string).match(/secret=([A-Z2-7]+)/)![1];
  assert.equal((await fakes.calls('authelia')).at(-1), ['storage', 'user', 'totp', 'generate', '--secret', secret, '--force', '--config', join(dir, 'authelia', 'configuration.yml'), '--', 'alice']);
  assert.is((await fakes.calls('systemctl')).filter((a) => a[0] === 'restart').length, restartsBefore);
}));

s('an accepted invitation makes the user and enrolls TOTP through the storage CLI', timed(15_000, async () => {
  const { token } = (await t.call('POST', '/api/invitations', { body: { username: 'bob', email: 'bob@example.test' } })).body;
  const res = await t.call('POST', `/api/invite/${token}/accept`, { as: 'none', body: { password: 'bob-password' } });
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.match(await readFile(usersFile(), 'utf8'), /^ {2}bob:\n/m);
  assert.equal((await fakes.calls('authelia')).at(-1)!.slice(-2), ['--', 'bob']);
}));

s('a username that reads as an option (--config, -h) is a user like any other: the CLI gets it after `--`', timed(30_000, async () => {
  for (const username of ['--config', '-h']) {
    const created = await t.call('POST', '/api/users', { body: { username, displayname: 'Dash', email: 'dash@example.test', password: 'a long password' } });
    assert.is(created.status, 201, JSON.stringify(created.body));
    const reset = await t.call('POST', `/api/users/${encodeURIComponent(username)}/reset-totp`);
    assert.is(reset.status, 200, JSON.stringify(reset.body));
    assert.equal((await fakes.calls('authelia')).at(-1)!.slice(-2), ['--', username]);
  }
}));

s.run();
