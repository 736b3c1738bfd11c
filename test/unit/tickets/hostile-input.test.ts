import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routes } from '../../../handlers/index.ts';
import { MAX_JSON_BODY_BYTES } from '../../../lib/http/middleware/validate.ts';
import { defined } from '../../helpers/defined.ts';
import { agent, issueTicket, makeWorld, requestTicket, validateTicket, type World } from './fixtures.ts';

// What a hostile or broken client can send to the ticket API: bodies that are not JSON objects,
// fields of the wrong type, fields the server owns, oversized bodies, and ids or labels that only
// look like real ones (whitespace, other scripts, prefixes).

const s = suite<{ w: World }>('tickets: hostile input', {} as { w: World });
s.before.each(async (ctx) => {
  ctx.w = await makeWorld();
});
s.after.each(async ({ w }) => w.t.close());

/** Every ticket route that reads a JSON body, with a path that reaches its handler. */
const jsonBodyRoutes = routes
  .filter((r) => r.path.startsWith('/api/tickets') && r.kind === 'http' && r.body !== undefined)
  .map((r) => ({ method: r.method, path: r.path.replace(':sessionId', 'ab') }));

/** Admin-only routes get the admin; the rest an agent, so that the access rules pass. */
const callerFor = (path: string) => (path === '/api/tickets/scopes' || path === '/api/tickets/assignments' ? 'admin' : agent('bob'));

s('the JSON-body routes are the seven the spec gives a body', () => {
  assert.equal(jsonBodyRoutes.map((r) => `${r.method} ${r.path}`).sort(), [
    'PATCH /api/tickets/sessions/ab',
    'POST /api/tickets',
    'POST /api/tickets/assignments',
    'POST /api/tickets/instances',
    'POST /api/tickets/scopes',
    'POST /api/tickets/sessions',
    'POST /api/tickets/validate',
  ]);
});

s('malformed JSON: 400 Validation failed with details.issues on every body route', async ({ w }) => {
  for (const { method, path } of jsonBodyRoutes) {
    for (const text of ['{', '{"ticketId": }', "{'ticketId': 'ab'}", '{"a":1}}', 'undefined', '\u0000']) {
      const { status, body } = await w.t.call(method, path, { as: callerFor(path), body: text });
      assert.is(status, 400, `${method} ${path} ${JSON.stringify(text)}`);
      assert.is(body.error, 'Validation failed');
      assert.ok(Array.isArray(body.details.issues) && body.details.issues.length > 0);
    }
  }
});

s('JSON that is not an object (null, array, string, number, boolean): 400 Validation failed', async ({ w }) => {
  for (const { method, path } of jsonBodyRoutes) {
    for (const text of ['null', '[]', '[{"ticketId":"ab"}]', '"ab"', '42', 'true']) {
      const { status, body } = await w.t.call(method, path, { as: callerFor(path), body: text });
      assert.equal([status, body.error], [400, 'Validation failed'], `${method} ${path} ${text}`);
    }
  }
});

s('fields of the wrong type: 400 Validation failed, nothing issued or consumed', async ({ w }) => {
  const ticketId = await issueTicket(w);
  const wrong = [
    ['/api/tickets', { scope: 'chat:send', instanceId: Number.parseInt(w.instanceId.slice(0, 8), 16), target: 'bob' }],
    ['/api/tickets', { scope: 'chat:send', instanceId: [w.instanceId], target: 'bob' }],
    ['/api/tickets', { scope: 'chat:send', instanceId: w.instanceId, target: ['bob'] }],
    ['/api/tickets', { scope: null, instanceId: w.instanceId, target: 'bob' }],
    ['/api/tickets', { scope: { toString: 'chat:send' }, instanceId: w.instanceId, target: 'bob' }],
    ['/api/tickets/validate', { ticketId: [ticketId] }],
    ['/api/tickets/validate', { ticketId: { $ne: '' } }],
    ['/api/tickets/validate', { ticketId: 1e63 }],
    ['/api/tickets/validate', { ticketId: true }],
    ['/api/tickets/sessions', { ticketId: null }],
  ] as const;
  for (const [path, body] of wrong) {
    const answer = await w.t.call('POST', path, { as: path === '/api/tickets' ? agent('alice') : agent('bob'), body });
    assert.equal([answer.status, answer.body.error], [400, 'Validation failed'], `${path} ${JSON.stringify(body)}`);
  }
  assert.is(w.t.services.store.tickets.value.length, 1, 'no ticket issued');
  assert.is(w.t.services.store.tickets.get(ticketId)?.used, false, 'nothing consumed');
});

s('a body over 1 MiB: 413 Request body too large, before it is parsed', async ({ w }) => {
  const ticketId = await issueTicket(w);
  const padding = 'a'.repeat(MAX_JSON_BODY_BYTES);
  // the second body is not JSON at all: parsed first, it would be a 400
  for (const path of ['/api/tickets', '/api/tickets/validate', '/api/tickets/sessions']) {
    for (const sent of [JSON.stringify({ ticketId, pad: padding }), `{"ticketId": "${ticketId}", "pad": "${padding}`]) {
      const { status, body } = await w.t.call('POST', path, { as: agent('bob'), body: sent });
      assert.equal([status, body], [413, { error: 'Request body too large' }], path);
    }
  }
  assert.is(w.t.services.store.tickets.get(ticketId)?.used, false);
});

s('a body that is not JSON by its content type: 415', async ({ w }) => {
  const ticketId = await issueTicket(w);
  const { status, body } = await w.t.call('POST', '/api/tickets/validate', {
    as: agent('bob'),
    body: JSON.stringify({ ticketId }),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  assert.equal([status, body], [415, { error: 'Content-Type must be application/json' }]);
  assert.is(w.t.services.store.tickets.get(ticketId)?.used, false);
});

s('fields the server owns are ignored in a ticket request: source, id, expiry and used markers', async ({ w }) => {
  const forged = { source: 'carol', id: 'f'.repeat(64), expiresAt: '2099-01-01T00:00:00.000Z', createdAt: '2000-01-01T00:00:00.000Z', used: true, usedAt: null };
  const { status, body } = await requestTicket(w, 'alice', forged);
  assert.is(status, 201, JSON.stringify(body));
  assert.is(body.ticket.source, 'alice');
  assert.is.not(body.ticket.id, forged.id);
  assert.is(body.ticket.expiresAt, new Date(w.clock.now() + 30_000).toISOString());
  const stored = defined(w.t.services.store.tickets.get(body.ticket.id), 'the stored ticket');
  assert.equal([stored.source, stored.used, stored.createdAt], ['alice', false, new Date(w.clock.now()).toISOString()]);
});

s('fields the server owns are ignored in an instance registration: owner, id, status, heartbeat', async ({ w }) => {
  const body = {
    scope: 'chat:send',
    transport: { strategies: ['relay'] },
    agentLabel: 'bob',
    instanceId: 'f'.repeat(32),
    instanceScope: `chat:send:${'f'.repeat(32)}`,
    status: 'dead',
    lastHeartbeat: '2000-01-01T00:00:00.000Z',
  };
  const r = await w.t.call('POST', '/api/tickets/instances', { as: agent('carol'), body });
  assert.is(r.status, 201, JSON.stringify(r.body));
  assert.is.not(r.body.instanceId, body.instanceId);
  const stored = defined(w.t.services.store.ticketInstances.get(r.body.instanceId), 'the new instance');
  assert.equal([stored.agentLabel, stored.status, stored.lastHeartbeat], ['carol', 'active', new Date(w.clock.now()).toISOString()]);
  assert.equal(Object.keys(stored.transport), ['strategies']);
});

s('fields the server owns are ignored in an assignment: assignedBy, assignedAt', async ({ w }) => {
  const body = { agentLabel: 'carol', instanceScope: w.instanceScope, assignedBy: 'root', assignedAt: '2000-01-01T00:00:00.000Z' };
  const { status, body: answer } = await w.t.call('POST', '/api/tickets/assignments', { body });
  assert.is(status, 201);
  assert.equal([answer.assignment.assignedBy, answer.assignment.assignedAt], ['admin', new Date(w.clock.now()).toISOString()]);
});

s('a __proto__ key in a body changes no prototype and no record', async ({ w }) => {
  const text = `{"__proto__": {"used": true, "source": "carol", "isAdmin": true}, "scope": "chat:send", "instanceId": "${w.instanceId}", "target": "bob"}`;
  const { status, body } = await w.t.call('POST', '/api/tickets', { as: agent('alice'), body: text });
  assert.is(status, 201, JSON.stringify(body));
  assert.is(body.ticket.source, 'alice');
  assert.is(({} as Record<string, unknown>).used, undefined);
  assert.is(w.t.services.store.tickets.get(body.ticket.id)?.used, false);
  assert.is(Object.getPrototypeOf(defined(w.t.services.store.tickets.get(body.ticket.id), 'the ticket')), Object.prototype);
});

s('ticket ids with whitespace, other scripts or invisible characters: 400, and the ticket is still unused', async ({ w }) => {
  const ticketId = await issueTicket(w);
  const lookalikes = [
    ` ${ticketId}`,
    `${ticketId} `,
    `${ticketId}\n`,
    `${ticketId}\u0000`,
    `${ticketId.slice(0, 10)}\u200b${ticketId.slice(10)}`, // zero-width space
    ticketId.replace(/[0-9]/, (d) => String.fromCharCode(0xff10 + Number(d))), // a full-width digit
    ticketId.replace(/[0-9]/, (d) => String.fromCharCode(0x0660 + Number(d))), // an Arabic-Indic digit
    ticketId.replace(/[a-f]/, (c) => String.fromCharCode(c.charCodeAt(0) + 0xfee0)), // a full-width letter
  ];
  for (const candidate of lookalikes) {
    for (const path of ['/api/tickets/validate', '/api/tickets/sessions']) {
      const { status, body } = await w.t.call('POST', path, { as: agent('bob'), body: { ticketId: candidate } });
      assert.equal([status, body.error], [400, 'Validation failed'], `${path} ${JSON.stringify(candidate)}`);
    }
  }
  assert.is(w.t.services.store.tickets.get(ticketId)?.used, false);
  assert.is((await validateTicket(w, ticketId)).status, 200, 'the real id still works once');
});

s('id path parameters with encoded whitespace or other scripts: 400, nothing removed', async ({ w }) => {
  const ticketId = await issueTicket(w);
  const paths = [
    ['DELETE', `/api/tickets/%20${ticketId}`],
    ['DELETE', `/api/tickets/${ticketId}%0A`],
    ['DELETE', `/api/tickets/${encodeURIComponent('\uff11')}${ticketId.slice(1)}`],
    ['DELETE', `/api/tickets/instances/%20${w.instanceId}`],
    ['POST', `/api/tickets/instances/${w.instanceId}%09/heartbeat`],
    ['POST', `/api/tickets/sessions/%E2%80%8B${w.instanceId}/heartbeat`],
  ] as const;
  for (const [method, path] of paths) {
    const { status, body } = await w.t.call(method, path, { as: method === 'DELETE' ? 'admin' : agent('alice') });
    assert.equal([status, body.error], [400, 'Validation failed'], `${method} ${path}`);
  }
  assert.is(w.t.services.store.tickets.get(ticketId)?.used, false);
  assert.ok(w.t.services.store.ticketInstances.get(w.instanceId));
});

s('a prefix of a ticket id is not the ticket: 401, and the ticket is still unused', async ({ w }) => {
  const ticketId = await issueTicket(w);
  for (const prefix of [ticketId.slice(0, 8), ticketId.slice(0, 63), `${ticketId}0`]) {
    const { status, body } = await validateTicket(w, prefix);
    assert.equal([status, body], [401, { error: 'Invalid ticket' }], prefix);
  }
  assert.is(w.t.services.store.tickets.get(ticketId)?.used, false);
});

s('target labels are exact: whitespace, case, other scripts and NUL name nobody (the generic 404)', async ({ w }) => {
  for (const target of [' bob', 'bob ', 'BOB', 'b\u043eb' /* Cyrillic o */, 'bob\u0000', 'bo\u0301b', 'bob\u200b']) {
    const { status, body } = await requestTicket(w, 'alice', { target });
    assert.equal([status, body], [404, { error: 'Not found' }], JSON.stringify(target));
  }
  assert.equal(w.t.services.store.tickets.value, []);
});

s('assignment labels are exact: a label that only looks like an agent is 404 Agent not found', async ({ w }) => {
  for (const agentLabel of [' carol', 'carol\t', 'CAROL', 'c\u0430rol' /* Cyrillic a */]) {
    const { status, body } = await w.t.call('POST', '/api/tickets/assignments', { body: { agentLabel, instanceScope: w.instanceScope } });
    assert.equal([status, body], [404, { error: 'Agent not found' }], JSON.stringify(agentLabel));
  }
});

s.run();
