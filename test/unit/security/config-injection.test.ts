// Attack: a request value with newlines or YAML/JSON syntax that lands in a configuration file the
// portal reads (users_database.yml, configuration.yml's access rules) and adds a user, a password
// or a rule of its own.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { sandboxPaths } from '../../../lib/system/sandbox-system.ts';
import { newUser, portalUsers, userApp, type UserTestApp } from '../users/support.ts';

const s = suite('security: request values never become portal configuration');
let t: UserTestApp;
s.before.each(async () => {
  t = await userApp();
});
s.after.each(() => t.close());

const EVIL_NAME = 'Eve\nusers:\n  root:\n    password: "$2a$04$forged"\n    groups: [admins]\n#';

s('a display name full of YAML stays one display name; no user or group appears', async () => {
  const created = await t.call('POST', '/api/users', { body: newUser('eve', { displayname: EVIL_NAME }) });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const updated = await t.call('PUT', '/api/users/eve', { body: { displayname: `${EVIL_NAME} again` } });
  assert.is(updated.status, 200);
  const users = await portalUsers(t);
  assert.equal(users.map((u) => u.username).sort(), ['eve']);
  assert.is(users[0]!.displayname, `${EVIL_NAME} again`);
  assert.equal(users[0]!.groups, []);
  const onDisk = parse(await readFile(join(sandboxPaths(t.services.store.dataDir).authelia, 'users_database.yml'), 'utf8'));
  assert.equal(Object.keys(onDisk.users), ['eve']);
  assert.equal(Object.keys(onDisk.users.eve).sort(), ['displayname', 'email', 'groups', 'password']);
});

s('an invitation name, a group or an email with syntax in it is a validation failure', async () => {
  for (const [path, body] of [
    ['/api/invitations', { username: 'bob\n  root:', email: 'bob@example.test' }],
    ['/api/users', newUser('carol', { groups: ['admins]\n  - root'] })],
    ['/api/users', newUser('dave', { email: 'dave@example.test\nusers:' })],
  ] as const) {
    const r = await t.call('POST', path, { body });
    assert.equal([r.status, r.body.error], [400, 'Validation failed'], JSON.stringify(body));
  }
  assert.equal((await portalUsers(t)).map((u) => u.username), []);
});

s.run();
