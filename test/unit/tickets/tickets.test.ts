import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_TICKETS } from '../../../lib/tickets/limits.ts';
import { defined } from '../../helpers/defined.ts';
import {
  MINUTE,
  addAgents,
  advance,
  agent,
  assign,
  issueTicket,
  makeWorld,
  openSession,
  requestTicket,
  revokeAgent,
  revokeSerial,
  setCapabilities,
  validateTicket,
  withStaleLookup,
  type World,
} from './fixtures.ts';

const s = suite<{ w: World }>('tickets: tickets', {} as { w: World });
s.before.each(async (ctx) => {
  ctx.w = await makeWorld();
});
s.after.each(async ({ w }) => w.t.close());

const GENERIC = { error: 'Not found' };
const INVALID = { error: 'Invalid ticket' };
const EXPECTED_TRANSPORT = { strategies: ['relay', 'direct'], preferred: 'direct', protocol: 'wss', port: 0, direct: { host: 'alice.example.com', port: 8443 } };

async function assertGeneric404(w: World, source = 'alice', body: Record<string, unknown> = {}) {
  const { status, body: answer } = await requestTicket(w, source, body);
  assert.equal([status, answer], [404, GENERIC], JSON.stringify(body));
}

// ---- POST /api/tickets ----

s('201 {ok, ticket} with a 64-hex id, the request fields and expiresAt', async ({ w }) => {
  const { status, body } = await requestTicket(w);
  assert.is(status, 201);
  assert.is(body.ok, true);
  assert.equal(Object.keys(body.ticket).sort(), ['expiresAt', 'id', 'instanceId', 'scope', 'source', 'target']);
  assert.match(body.ticket.id, /^[0-9a-f]{64}$/);
  assert.equal([body.ticket.scope, body.ticket.instanceId, body.ticket.source, body.ticket.target], ['chat:send', w.instanceId, 'alice', 'bob']);
  assert.is(body.ticket.expiresAt, new Date(w.clock.now() + 30_000).toISOString());
});

s('check 1: a source without the base scope capability gets the generic 404', async ({ w }) => {
  await setCapabilities(w.t, 'alice', ['chat:read']);
  await assertGeneric404(w);
});

s('check 1: an agent whose registered certificate serial is revoked holds nothing, whatever serial it presents', async ({ w }) => {
  await revokeSerial(w.t, 'alice');
  const { status, body } = await w.t.call('POST', '/api/tickets', { as: { agent: 'alice', serial: '5EC0D' }, body: { scope: 'chat:send', instanceId: w.instanceId, target: 'bob' } });
  assert.equal([status, body], [404, GENERIC]);
});

s('check 2: a target without the capability, revoked, or unknown gets the generic 404', async ({ w }) => {
  await setCapabilities(w.t, 'bob', ['chat:read']);
  await assertGeneric404(w);
  await setCapabilities(w.t, 'bob', ['chat:send']);
  await revokeAgent(w.t, 'bob');
  await assertGeneric404(w);
  await addAgents(w.t, ['dave']);
  await assign(w.t, 'dave', w.instanceScope);
  await revokeSerial(w.t, 'dave');
  await assertGeneric404(w, 'alice', { target: 'dave' });
  await assertGeneric404(w, 'alice', { target: 'nobody' });
});

s('check 3: a source that does not own the instance (or a wrong scope or id) gets the generic 404', async ({ w }) => {
  await assign(w.t, 'alice', w.instanceScope);
  await assertGeneric404(w, 'carol', { target: 'alice' });
  await assertGeneric404(w, 'alice', { instanceId: 'abcdef' });
  await setCapabilities(w.t, 'alice', ['chat:send', 'chat:read']);
  await setCapabilities(w.t, 'bob', ['chat:send', 'chat:read']);
  await assertGeneric404(w, 'alice', { scope: 'chat:read' });
});

s('check 4: 503 for a stale instance; a dead one is the generic 404', async ({ w }) => {
  await advance(w, 5 * MINUTE);
  const stale = await requestTicket(w);
  assert.equal([stale.status, stale.body], [503, { error: 'Instance is stale' }]);
  await w.t.services.store.ticketInstances.update((list) => void (defined(list[0], 'the instance').status = 'dead'));
  await assertGeneric404(w);
});

s('stale instance: a source without the capability (check 1) and a non-owner (check 3) still get the generic 404, not 503', async ({ w }) => {
  await advance(w, 5 * MINUTE);
  assert.is((await requestTicket(w)).status, 503, 'the instance is stale');
  await assign(w.t, 'alice', w.instanceScope);
  await assertGeneric404(w, 'carol', { target: 'alice' });
  await setCapabilities(w.t, 'alice', ['chat:read']);
  await assertGeneric404(w);
});

s('check 5: source and target must differ', async ({ w }) => {
  await assign(w.t, 'alice', w.instanceScope); // so that check 6 would pass
  await assertGeneric404(w, 'alice', { target: 'alice' });
});

s('check 6: a target not assigned to the instance gets the generic 404', async ({ w }) => {
  await assertGeneric404(w, 'alice', { target: 'carol' });
});

s('checks run in order: capability (2) before staleness (4) before assignment (6)', async ({ w }) => {
  await advance(w, 5 * MINUTE);
  assert.is((await requestTicket(w, 'alice', { target: 'carol' })).status, 503, 'stale is reported before the missing assignment');
  await setCapabilities(w.t, 'bob', []);
  assert.is((await requestTicket(w)).status, 404, 'the target capability is checked before staleness');
});

s('an admin certificate owns no instance: the generic 404', async ({ w }) => {
  const { status, body } = await w.t.call('POST', '/api/tickets', { body: { scope: 'chat:send', instanceId: w.instanceId, target: 'bob' } });
  assert.equal([status, body], [404, GENERIC]);
});

s('429 Rate limit exceeded after 10 requests per agent per minute; the next window is fresh', async ({ w }) => {
  for (let i = 0; i < 10; i++) assert.is((await requestTicket(w)).status, 201, `request ${i + 1}`);
  const limited = await requestTicket(w);
  assert.equal([limited.status, limited.body], [429, { error: 'Rate limit exceeded' }]);
  assert.is((await requestTicket(w, 'carol', { target: 'alice' })).status, 404, 'other agents have their own counter');
  await advance(w, MINUTE);
  assert.is((await requestTicket(w)).status, 201);
});

s('failed requests count toward the rate limit too', async ({ w }) => {
  for (let i = 0; i < 10; i++) await requestTicket(w, 'alice', { target: 'carol' });
  assert.is((await requestTicket(w)).status, 429);
});

s('rate counters are cleaned every 2 minutes', async ({ w }) => {
  await requestTicket(w);
  assert.is(w.t.services.ticketing.rateLimiter.size, 1);
  await advance(w, MINUTE);
  assert.is(w.t.services.ticketing.rateLimiter.size, 1, 'not before the 2-minute cleanup');
  await advance(w, MINUTE);
  assert.is(w.t.services.ticketing.rateLimiter.size, 0);
});

s('503 Ticket limit reached at 1000 tickets', async ({ w }) => {
  await issueTicket(w);
  const template = defined(w.t.services.store.tickets.value[0], 'the issued ticket');
  await w.t.services.store.tickets.update((list) => {
    // small numbers as 64-hex ids: a random issued id is never one of them (a shared prefix collided about 1 run in 65)
    for (let i = list.length; i < MAX_TICKETS; i++) list.push({ ...template, id: i.toString(16).padStart(64, '0') });
  });
  const { status, body } = await requestTicket(w);
  assert.equal([status, body], [503, { error: 'Ticket limit reached' }]);
});

s('body rules: scope format, instanceId hex 1-64, target 1-100', async ({ w }) => {
  for (const body of [{ scope: 'chat' }, { instanceId: 'xyz' }, { instanceId: 'a'.repeat(65) }, { instanceId: '' }, { target: '' }, { target: 'b'.repeat(101) }]) {
    const { status, body: answer } = await requestTicket(w, 'alice', body);
    assert.equal([status, answer.error], [400, 'Validation failed'], JSON.stringify(body));
  }
});

// ---- GET /api/tickets/inbox ----

s('inbox: the caller\'s unexpired, unused tickets with their transport', async ({ w }) => {
  const id = await issueTicket(w);
  const ticket = defined(w.t.services.store.tickets.value[0], 'the issued ticket');
  const { status, body } = await w.t.call('GET', '/api/tickets/inbox', { as: agent('bob') });
  assert.is(status, 200);
  assert.equal(body, { tickets: [{ id, scope: 'chat:send', instanceId: w.instanceId, source: 'alice', expiresAt: ticket.expiresAt, transport: EXPECTED_TRANSPORT }] });
  assert.equal((await w.t.call('GET', '/api/tickets/inbox', { as: agent('carol') })).body, { tickets: [] });
  assert.equal((await w.t.call('GET', '/api/tickets/inbox', { as: agent('alice') })).body, { tickets: [] });
});

s('inbox: used and expired tickets are left out', async ({ w }) => {
  const used = await issueTicket(w);
  await validateTicket(w, used);
  await issueTicket(w);
  await advance(w, 31_000);
  const fresh = await issueTicket(w);
  const { body } = await w.t.call('GET', '/api/tickets/inbox', { as: agent('bob') });
  assert.equal(body.tickets.map((t: { id: string }) => t.id), [fresh]);
});

s('inbox: 400 Agent certificate label required for an admin certificate', async ({ w }) => {
  const { status, body } = await w.t.call('GET', '/api/tickets/inbox');
  assert.equal([status, body], [400, { error: 'Agent certificate label required' }]);
});

// ---- POST /api/tickets/validate ----

s('validate: 200 {valid: true, scope, instanceId, source, target, transport} and the ticket is used', async ({ w }) => {
  const id = await issueTicket(w);
  const { status, body } = await validateTicket(w, id);
  assert.is(status, 200);
  assert.equal(body, { valid: true, scope: 'chat:send', instanceId: w.instanceId, source: 'alice', target: 'bob', transport: EXPECTED_TRANSPORT });
  const stored = defined(w.t.services.store.tickets.value[0], 'the stored ticket');
  assert.equal([stored.used, stored.usedAt], [true, new Date(w.clock.now()).toISOString()]);
});

s('validate: expired, used, wrong target and unknown all answer 401 Invalid ticket', async ({ w }) => {
  const used = await issueTicket(w);
  await validateTicket(w, used);
  const forBob = await issueTicket(w);
  const expiring = await issueTicket(w);
  const answers = [await validateTicket(w, used), await validateTicket(w, forBob, 'carol'), await validateTicket(w, 'abcdef')];
  await advance(w, 30_000);
  answers.push(await validateTicket(w, expiring));
  for (const { status, body } of answers) assert.equal([status, body], [401, INVALID]);
  assert.is(w.t.services.store.tickets.value.find((t) => t.id === forBob)?.used, false, 'a wrong-target attempt does not consume it');
});

s('validate: the lifetime is 30 s to the millisecond (valid at 29.999 s, expired at 30 s)', async ({ w }) => {
  const last = await issueTicket(w);
  const late = await issueTicket(w);
  await advance(w, 29_999);
  assert.is((await validateTicket(w, last)).status, 200);
  await advance(w, 1);
  assert.equal((await validateTicket(w, late)).body, INVALID);
});

s('validate: the used check is repeated inside the write, so a stale read cannot consume a ticket twice', async ({ w }) => {
  const ticketId = await issueTicket(w);
  const beforeValidation = new Map([[ticketId, w.t.services.store.tickets.get(ticketId)]]);
  assert.is((await validateTicket(w, ticketId)).status, 200);
  // read before an await, while another validation won
  const again = await withStaleLookup(w.t.services.ticketing.tickets, 'ticketById', beforeValidation, () => validateTicket(w, ticketId));
  assert.equal([again.status, again.body], [401, INVALID]);
});

s('validate: a ticket removed after it was read (the hourly cleanup, an instance removal) is not reported valid', async ({ w }) => {
  const ticketId = await issueTicket(w);
  const beforeRemoval = new Map([[ticketId, w.t.services.store.tickets.get(ticketId)]]);
  await w.t.services.store.tickets.update((list) => void list.splice(0));
  const answer = await withStaleLookup(w.t.services.ticketing.tickets, 'ticketById', beforeRemoval, () => validateTicket(w, ticketId));
  assert.equal([answer.status, answer.body], [401, INVALID]);
});

s('inbox: each agent\'s body is serialized once, until a ticket of that agent changes or expires, or its capabilities do', async ({ w }) => {
  const desk = w.t.services.ticketing.tickets;
  const bob = { label: 'bob', capabilities: new Set(['chat:send']) };
  const carol = { label: 'carol', capabilities: new Set(['chat:send']) };
  const decode = (bytes: Uint8Array) => JSON.parse(new TextDecoder().decode(bytes));
  const empty = desk.inboxJson(bob);
  assert.is(desk.inboxJson(bob), empty, 'cached bytes');
  const carolBefore = desk.inboxJson(carol);
  const ticketId = await issueTicket(w);
  const withTicket = desk.inboxJson(bob);
  assert.is.not(withTicket, empty, 'a new ticket for bob');
  assert.equal(decode(withTicket).tickets.map((x: { id: string }) => x.id), [ticketId]);
  // a certificate of the label holding no capability (revoked, or re-issued since) is answered empty
  // and leaves the label's body in the cache for its current certificate
  assert.equal(decode(desk.inboxJson({ label: 'bob', capabilities: new Set() })), { tickets: [] });
  assert.is(desk.inboxJson(bob), withTicket, 'still cached for the current certificate');
  assert.is(desk.inboxJson(carol), carolBefore, 'another agent\'s ticket leaves carol\'s body alone');
  assert.equal(decode(desk.inboxJson({ label: 'bob', capabilities: new Set(['chat:read']) })), { tickets: [] }, 'new capabilities, a new body');
  assert.is((await validateTicket(w, ticketId)).status, 200);
  assert.equal(decode(desk.inboxJson(bob)), { tickets: [] }, 'a used ticket leaves');
  await issueTicket(w);
  const waiting = desk.inboxJson(bob);
  w.clock.advance(30_000);
  assert.is.not(desk.inboxJson(bob), waiting, 'an expiry needs no write to show');
  assert.equal(decode(desk.inboxJson(bob)), { tickets: [] });
});

s('inbox: an expired ticket leaves the inbox without a write', async ({ w }) => {
  await issueTicket(w);
  assert.is((await w.t.call('GET', '/api/tickets/inbox', { as: agent('bob') })).body.tickets.length, 1);
  const version = w.t.services.store.tickets.version;
  await advance(w, 30_000);
  assert.equal((await w.t.call('GET', '/api/tickets/inbox', { as: agent('bob') })).body, { tickets: [] });
  assert.is(w.t.services.store.tickets.version, version);
});

s('validate: 400 for an admin certificate; ticketId must be hex 1-128', async ({ w }) => {
  const id = await issueTicket(w);
  assert.equal((await w.t.call('POST', '/api/tickets/validate', { body: { ticketId: id } })).status, 400);
  for (const ticketId of ['', 'zz', 'a'.repeat(129), undefined]) {
    assert.is((await validateTicket(w, ticketId as string)).body.error, 'Validation failed', String(ticketId));
  }
});

// ---- admin: GET /api/tickets, DELETE /api/tickets/:ticketId ----

s('GET /api/tickets: every ticket, used and expired included, with the used markers, its session and transport (Portlama\'s fields)', async ({ w }) => {
  const { sessionId } = await openSession(w);
  await issueTicket(w);
  await advance(w, 31_000);
  const { status, body } = await w.t.call('GET', '/api/tickets');
  assert.is(status, 200);
  assert.is(body.tickets.length, 2);
  assert.equal(Object.keys(body.tickets[0]).sort(), ['createdAt', 'expiresAt', 'id', 'instanceId', 'revokedAt', 'scope', 'sessionId', 'source', 'target', 'transport', 'used', 'usedAt']);
  assert.equal(body.tickets.map((t: { used: boolean }) => t.used), [true, false]);
  assert.equal(body.tickets.map((t: { sessionId: string | null }) => t.sessionId), [sessionId, null]);
  assert.equal(body.tickets.map((t: { transport: unknown }) => t.transport), [EXPECTED_TRANSPORT, EXPECTED_TRANSPORT]);
});

s('DELETE /api/tickets/:ticketId: 200 {ok}, the ticket is used and its session ends', async ({ w }) => {
  const { ticketId, sessionId } = await openSession(w);
  const { status, body } = await w.t.call('DELETE', `/api/tickets/${ticketId}`);
  assert.equal([status, body], [200, { ok: true }]);
  const ticket = w.t.services.store.tickets.value.find((t) => t.id === ticketId)!;
  assert.is(ticket.used, true);
  const session = w.t.services.store.ticketSessions.value.find((x) => x.sessionId === sessionId)!;
  assert.equal([session.status, session.endReason], ['dead', 'admin_killed']);
});

s('DELETE /api/tickets/:ticketId on an unused ticket: it leaves the inbox, cannot be validated or open a session', async ({ w }) => {
  const id = await issueTicket(w);
  assert.is((await w.t.call('DELETE', `/api/tickets/${id}`)).status, 200);
  assert.equal((await w.t.call('GET', '/api/tickets/inbox', { as: agent('bob') })).body, { tickets: [] });
  assert.is((await validateTicket(w, id)).status, 401);
  assert.is((await w.t.call('POST', '/api/tickets/sessions', { as: agent('bob'), body: { ticketId: id } })).status, 400);
});

s('DELETE /api/tickets/:ticketId: 404 Ticket not found', async ({ w }) => {
  const { status, body } = await w.t.call('DELETE', '/api/tickets/abcdef');
  assert.equal([status, body], [404, { error: 'Ticket not found' }]);
});

s('listing and revoking tickets are admin only', async ({ w }) => {
  const id = await issueTicket(w);
  for (const [method, path] of [['GET', '/api/tickets'], ['DELETE', `/api/tickets/${id}`]] as const) {
    const { status, body } = await w.t.call(method, path, { as: agent('alice') });
    assert.equal([status, body], [403, { error: 'Insufficient certificate scope' }]);
  }
});

s.run();
