import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestApp, type TestApp } from '../../../lib/testing.ts';

// The spec's first error rule for path parameters: an id with a defined format (tunnel, site and
// invitation ids are UUIDs; invite tokens 64 lowercase hex; instance, ticket and session ids hex
// strings of 1 to 128 characters) that is malformed answers 400 Validation failed with the issue on
// the parameter, before any lookup. A UUID of any version (the nil UUID too) is well-formed: Portlama
// looks it up and answers 404. Names without a format rule on deletion (scope names, assignment
// segments) stay 404, as the tickets spec lists.

const s = suite('id parameters');
let t: TestApp;
s.before.each(async () => {
  t = await createTestApp();
  await t.completeOnboarding();
});
s.after.each(() => t.close());

const UUID = /^must be a UUID$/;
const NIL = '00000000-0000-0000-0000-000000000000';
const HEX = /^must be a hex string$|^Too big/;
const cases: [method: string, path: (id: string) => string, param: string, malformed: string[], message: RegExp][] = [
  ['PATCH', (id) => `/api/tunnels/${id}`, 'id', ['not-a-uuid', '00000000-0000-4000-8000-0000000000'], UUID],
  ['DELETE', (id) => `/api/tunnels/${id}`, 'id', ['not-a-uuid', '00000000-0000-4000-8000-00000000000g'], UUID],
  ['PATCH', (id) => `/api/sites/${id}`, 'id', ['not-a-uuid', '0000000000000000000000000000000'], UUID],
  ['DELETE', (id) => `/api/sites/${id}`, 'id', ['not-a-uuid', `${NIL}0`], UUID],
  ['POST', (id) => `/api/sites/${id}/verify-dns`, 'id', ['not-a-uuid'], UUID],
  ['GET', (id) => `/api/sites/${id}/files`, 'id', ['not-a-uuid'], UUID],
  ['DELETE', (id) => `/api/invitations/${id}`, 'id', ['not-a-uuid'], UUID],
  ['GET', (id) => `/api/invite/${id}`, 'token', ['x', 'AB'.repeat(32)], /^must be 64 lowercase hex characters$/],
  ['DELETE', (id) => `/api/tickets/${id}`, 'ticketId', ['xyz', 'a'.repeat(129)], HEX],
  ['DELETE', (id) => `/api/tickets/instances/${id}`, 'instanceId', ['not-hex'], HEX],
  ['POST', (id) => `/api/tickets/instances/${id}/heartbeat`, 'instanceId', ['not-hex'], HEX],
  ['DELETE', (id) => `/api/tickets/sessions/${id}`, 'sessionId', ['not-hex'], HEX],
];

s('a malformed id is 400 Validation failed naming the parameter', async () => {
  for (const [method, path, param, malformed, message] of cases) {
    for (const bad of malformed) {
      const res = await t.call(method, path(bad), { body: method === 'PATCH' ? { enabled: true } : undefined });
      assert.is(res.status, 400, `${method} ${path(bad)}`);
      assert.is(res.body.error, 'Validation failed');
      const issue = res.body.details.issues.find((i: { path: string }) => i.path === param);
      assert.ok(issue, `${method} ${path(bad)}: an issue on ${param}`);
      assert.match(issue.message, message);
    }
  }
});

s('a well-formed id that names nothing is 404, the nil UUID and other UUID versions included', async () => {
  for (const id of [NIL, '00000000-0000-4000-8000-000000000000', '6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF']) {
    for (const [method, path, body] of [['DELETE', `/api/tunnels/${id}`], ['PATCH', `/api/tunnels/${id}`, { enabled: true }]] as const) {
      const res = await t.call(method, path, { body });
      assert.equal([res.status, res.body], [404, { error: 'Tunnel not found' }], `${method} ${path}`);
    }
    for (const [method, path, body] of [
      ['DELETE', `/api/sites/${id}`],
      ['PATCH', `/api/sites/${id}`, { spaMode: true }],
      ['POST', `/api/sites/${id}/verify-dns`],
      ['GET', `/api/sites/${id}/files`],
      ['DELETE', `/api/sites/${id}/files`, { path: 'index.html' }],
    ] as const) {
      const res = await t.call(method, path, { body });
      assert.equal([res.status, res.body], [404, { error: 'Site not found' }], `${method} ${path}`);
    }
    assert.equal((await t.call('DELETE', `/api/invitations/${id}`)).body, { error: 'Invitation not found' });
  }
  assert.is((await t.call('DELETE', `/api/tickets/${'ab'.repeat(32)}`)).status, 404);
  assert.is((await t.call('DELETE', `/api/tickets/sessions/${'cd'.repeat(16)}`)).status, 404);
});

s('names without a format rule on deletion stay 404', async () => {
  assert.equal((await t.call('DELETE', `/api/tickets/scopes/${'x'.repeat(80)}`)).body, { error: 'Scope not found' });
  assert.is((await t.call('DELETE', '/api/tickets/assignments/nobody/chat:send:zz')).status, 404);
});

s.run();
