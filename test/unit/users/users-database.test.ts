// users_database.yml is real YAML: an operator's hand edits (comments, YAML syntax, extra fields)
// read back, and writes made through the panel keep them.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { parseUsersDatabase, updateUsersDatabase } from '../../../lib/system/auth-portal/users-database.ts';
import type { PortalUser } from '../../../lib/system/types.ts';

const s = suite('users database: YAML round trip with comments');
const hashA = '$2b$12$' + 'a'.repeat(53);
const hashB = '$2b$12$' + 'b'.repeat(53);

const HAND_EDITED = `# Portal users for the office (edited by hand)
users:
  # the first account, made by provisioning
  admin:
    displayname: "Administrator"   # keep this name
    password: '${hashA}'
    email: ops@example.com
    groups: [admins]
    disabled: false
  carol:
    displayname: Carol Example
    password: ${hashB}
    email: carol@example.com
    groups:
      - dev   # carol's team
      - ops
`;

s('a hand-edited file reads back: flow and block lists, quoting, comments', () => {
  const users = parseUsersDatabase(HAND_EDITED);
  assert.equal(users, [
    { username: 'admin', displayname: 'Administrator', email: 'ops@example.com', groups: ['admins'], password: hashA },
    { username: 'carol', displayname: 'Carol Example', email: 'carol@example.com', groups: ['dev', 'ops'], password: hashB },
  ]);
});

s('a write through the panel keeps every comment and unknown field of untouched entries', () => {
  const users = parseUsersDatabase(HAND_EDITED);
  const dave: PortalUser = { username: 'dave', displayname: 'Dave', email: 'dave@example.com', groups: [], password: hashA };
  const carol = { ...users[1]!, email: 'carol@example.org' };
  const text = updateUsersDatabase(HAND_EDITED, [users[0]!, carol, dave]);
  for (const comment of ['# Portal users for the office (edited by hand)', '# the first account, made by provisioning', '# keep this name', "# carol's team"]) {
    assert.ok(text.includes(comment), `kept: ${comment}\n${text}`);
  }
  assert.ok(text.includes('disabled: false'), 'a field the panel does not know is kept');
  assert.equal(parseUsersDatabase(text).map((u) => u.username), ['admin', 'carol', 'dave']);
  assert.is(parseUsersDatabase(text)[1]!.email, 'carol@example.org');
  assert.equal(parse(text).users.dave, { displayname: 'Dave', password: hashA, email: 'dave@example.com', groups: [] });
});

s('removing a user removes only its entry; the rest of the text is unchanged', () => {
  const users = parseUsersDatabase(HAND_EDITED);
  const text = updateUsersDatabase(HAND_EDITED, [users[0]!]);
  assert.not.ok(text.includes('carol'));
  assert.ok(text.startsWith('# Portal users for the office (edited by hand)\nusers:\n  # the first account, made by provisioning\n  admin:\n'), text);
  assert.equal(updateUsersDatabase(HAND_EDITED, users), HAND_EDITED, 'no change, no edit');
});

s('a new file is YAML with a header, not JSON', () => {
  const text = updateUsersDatabase(null, [{ username: 'al', displayname: 'Al: the "first"', email: 'a@x.io', groups: ['admins'], password: hashA }]);
  assert.ok(text.startsWith('# Authelia users database'), text);
  assert.not.ok(text.trimStart().startsWith('{'));
  assert.is(parseUsersDatabase(text)[0]!.displayname, 'Al: the "first"');
});

// Authelia 4.38's FileDatabaseModel declares `users` valid:"required"; govalidator counts an empty
// map as missing, so Authelia exits at start ("users: non zero value required") on such a file
s('Authelia\'s rule: no database is written with an empty users map, new or edited', () => {
  assert.throws(() => updateUsersDatabase(null, []), /at least one user: Authelia refuses to start on an empty `users` map/);
  assert.throws(() => updateUsersDatabase(HAND_EDITED, []), /at least one user/);
  assert.throws(() => updateUsersDatabase('users: {}\n', []), /at least one user/);
});

s('rules: new or changed hashes must be bcrypt, usernames valid and unique; broken YAML is an error', () => {
  const users = parseUsersDatabase(HAND_EDITED);
  assert.throws(() => updateUsersDatabase(HAND_EDITED, [{ ...users[0]!, password: 'plain' }]), /not a bcrypt hash/);
  assert.throws(() => updateUsersDatabase(null, [users[0]!, users[0]!]), /Duplicate/);
  assert.throws(() => updateUsersDatabase(null, [{ ...users[0]!, username: '../x' }]));
  assert.throws(() => parseUsersDatabase('users:\n  a: [unclosed\n'), /not valid YAML \(line \d+, column \d+: [A-Z_]+\)$/);
  // the error names the place, never the text there (a hash, say)
  assert.throws(() => parseUsersDatabase(`users:\n  a:\n    password: [${hashA}\n`), (e: Error) => !e.message.includes(hashA));
  assert.throws(() => updateUsersDatabase('users: {\n', [users[0]!]), /not valid YAML/);
  assert.equal(parseUsersDatabase('users:\n'), []);
  assert.equal(parseUsersDatabase('# nothing yet\n'), []);
});

s.run();
