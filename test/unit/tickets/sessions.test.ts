import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_ACTIVE_SESSIONS } from '../../../lib/tickets/limits.ts';
import { defined } from '../../helpers/defined.ts';
import { agent, advance, issueTicket, makeWorld, openSession, revokeAgent, revokeSerial, setCapabilities, validateTicket, withStaleLookup, type World } from './fixtures.ts';

const s = suite<{ w: World }>('tickets: sessions', {} as { w: World });
s.before.each(async (ctx) => {
  ctx.w = await makeWorld();
});
s.after.each(async ({ w }) => w.t.close());

const createSession = (w: World, ticketId: string, caller = 'bob', extra: Record<string, unknown> = {}) =>
  w.t.call('POST', '/api/tickets/sessions', { as: agent(caller), body: { ticketId, ...extra } });
const heartbeat = (w: World, sessionId: string, caller = 'bob') => w.t.call('POST', `/api/tickets/sessions/${sessionId}/heartbeat`, { as: agent(caller) });
const patch = (w: World, sessionId: string, body: unknown, caller = 'bob') => w.t.call('PATCH', `/api/tickets/sessions/${sessionId}`, { as: agent(caller), body });
const sessionOf = (w: World, sessionId: string) => w.t.services.store.ticketSessions.value.find((x) => x.sessionId === sessionId)!;
const NOT_FOUND = { error: 'Session not found' };
const nowIso = (w: World) => new Date(w.clock.now()).toISOString();
/** The session as the admin listing shows it. */
async function listed(w: World, sessionId: string) {
  const { body } = await w.t.call('GET', '/api/tickets/sessions');
  return body.sessions.find((x: { sessionId: string }) => x.sessionId === sessionId);
}

async function validatedTicket(w: World): Promise<string> {
  const ticketId = await issueTicket(w);
  assert.is((await validateTicket(w, ticketId)).status, 200);
  return ticketId;
}

// ---- POST /api/tickets/sessions ----

s('create: 201 {ok, session} with a server id, the ticket fields, active, reconnectGraceSeconds 60', async ({ w }) => {
  const ticketId = await validatedTicket(w);
  const { status, body } = await createSession(w, ticketId, 'bob', { sessionId: 'c0ffee', lastActivityAt: '2000-01-01T00:00:00.000Z' });
  assert.is(status, 201);
  const now = new Date(w.clock.now()).toISOString();
  const { sessionId, ...rest } = body.session;
  assert.ok(sessionId !== 'c0ffee' && /^[0-9a-f]+$/.test(sessionId));
  assert.equal(rest, {
    ticketId,
    scope: 'chat:send',
    instanceId: w.instanceId,
    source: 'alice',
    target: 'bob',
    createdAt: now,
    lastActivityAt: now,
    status: 'active',
    reconnectGraceSeconds: 60,
    endedAt: null,
    endReason: null,
  });
  assert.is(body.ok, true);
});

s('create: 400 Invalid ticket state for an unused ticket, an unknown one, or a caller that is not the target', async ({ w }) => {
  const unused = await issueTicket(w);
  const used = await validatedTicket(w);
  for (const [ticketId, caller] of [[unused, 'bob'], ['abcdef', 'bob'], [used, 'alice'], [used, 'carol']] as const) {
    const { status, body } = await createSession(w, ticketId, caller);
    assert.equal([status, body], [400, { error: 'Invalid ticket state' }], `${ticketId} ${caller}`);
  }
});

s('create: 409 for a second session from the same ticket, even after the first ended', async ({ w }) => {
  const { ticketId, sessionId } = await openSession(w);
  const again = await createSession(w, ticketId);
  assert.equal([again.status, again.body], [409, { error: 'Session already exists for this ticket' }]);
  await w.t.call('DELETE', `/api/tickets/sessions/${sessionId}`);
  assert.is((await createSession(w, ticketId)).status, 409);
});

s('create: 503 Session limit reached at 500 active sessions; dead ones do not count', async ({ w }) => {
  const ticketId = await validatedTicket(w);
  const { sessionId: deadId } = await openSession(w);
  await w.t.call('DELETE', `/api/tickets/sessions/${deadId}`);
  const template = sessionOf(w, deadId);
  await w.t.services.store.ticketSessions.update((list) => {
    for (let i = 0; i < MAX_ACTIVE_SESSIONS; i++) list.push({ ...template, sessionId: `f${i}`, ticketId: `e${i}`, status: i % 2 ? 'active' : 'grace', endedAt: null, endReason: null });
  });
  const { status, body } = await createSession(w, ticketId);
  assert.equal([status, body], [503, { error: 'Session limit reached' }]);
  await w.t.services.store.ticketSessions.update((list) => void (defined(list.at(-1), 'the newest session').status = 'dead'));
  assert.is((await createSession(w, ticketId)).status, 201);
});

s('create: 400 for an admin certificate (needs label)', async ({ w }) => {
  const ticketId = await validatedTicket(w);
  const { status, body } = await w.t.call('POST', '/api/tickets/sessions', { body: { ticketId } });
  assert.equal([status, body], [400, { error: 'Agent certificate label required' }]);
});

// ---- POST /api/tickets/sessions/:sessionId/heartbeat ----

s('heartbeat: 200 {authorized: true} and the activity timestamp moves, for source and target', async ({ w }) => {
  const { sessionId } = await openSession(w);
  await advance(w, 10_000);
  assert.equal((await heartbeat(w, sessionId)).body, { authorized: true });
  assert.is((await listed(w, sessionId)).lastActivityAt, nowIso(w));
  await advance(w, 10_000);
  assert.equal((await heartbeat(w, sessionId, 'alice')).body, { authorized: true });
  assert.equal([(await listed(w, sessionId)).lastActivityAt, (await listed(w, sessionId)).status], [nowIso(w), 'active']);
});

s('heartbeat: a session in grace stays in grace', async ({ w }) => {
  const { sessionId } = await openSession(w);
  assert.is((await patch(w, sessionId, { status: 'grace' })).status, 200);
  assert.equal((await heartbeat(w, sessionId)).body, { authorized: true });
  await advance(w, 40_000);
  assert.equal((await heartbeat(w, sessionId, 'alice')).body, { authorized: true });
  assert.is((await listed(w, sessionId)).status, 'grace');
  assert.is(sessionOf(w, sessionId).status, 'grace');
});

s('heartbeat: within 30 s of the last write, heartbeats are kept in memory (at most one write); the listing shows the latest', async ({ w }) => {
  const { sessionId } = await openSession(w);
  const sessions = w.t.services.store.ticketSessions;
  const created = sessionOf(w, sessionId).lastActivityAt;
  const version = sessions.version;
  for (let i = 0; i < 10; i++) {
    await advance(w, 2_900);
    assert.equal((await heartbeat(w, sessionId, i % 2 ? 'alice' : 'bob')).body, { authorized: true });
    assert.is((await listed(w, sessionId)).lastActivityAt, nowIso(w));
  }
  await Promise.all(Array.from({ length: 20 }, () => heartbeat(w, sessionId)));
  assert.ok(sessions.version - version <= 1, `${sessions.version - version} writes`);
  assert.is(sessionOf(w, sessionId).lastActivityAt, created, 'nothing written yet: 29 s since the last write');

  await advance(w, 1_000);
  assert.equal((await heartbeat(w, sessionId)).body, { authorized: true });
  assert.is(sessions.version, version + 1, 'after 30 s a heartbeat writes');
  assert.is(sessionOf(w, sessionId).lastActivityAt, nowIso(w));
  await Promise.all(Array.from({ length: 20 }, () => heartbeat(w, sessionId)));
  assert.is(sessions.version, version + 1, 'and the next 30 s write nothing again');
});

s('heartbeat: the write that falls due stores every session\'s held activity at once', async ({ w }) => {
  const first = await openSession(w);
  const second = await openSession(w);
  const sessions = w.t.services.store.ticketSessions;
  await advance(w, 20_000);
  await heartbeat(w, second.sessionId);
  const secondAt = nowIso(w);
  await advance(w, 10_000);
  const version = sessions.version;
  await Promise.all([heartbeat(w, first.sessionId), heartbeat(w, first.sessionId, 'alice')]);
  assert.is(sessions.version, version + 1, 'one write');
  assert.equal([sessionOf(w, first.sessionId).lastActivityAt, sessionOf(w, second.sessionId).lastActivityAt], [nowIso(w), secondAt]);
});

s('heartbeat: the activity held in memory is written by the next status change or end', async ({ w }) => {
  const first = await openSession(w);
  const second = await openSession(w);
  await advance(w, 5_000);
  await heartbeat(w, first.sessionId);
  await heartbeat(w, second.sessionId);
  const heartbeatAt = nowIso(w);
  await advance(w, 5_000);
  assert.is((await patch(w, first.sessionId, { status: 'grace' })).status, 200);
  assert.is(sessionOf(w, first.sessionId).lastActivityAt, nowIso(w));
  await w.t.call('DELETE', `/api/tickets/sessions/${second.sessionId}`);
  assert.equal([sessionOf(w, second.sessionId).status, sessionOf(w, second.sessionId).lastActivityAt], ['dead', heartbeatAt]);
  assert.equal(await listed(w, second.sessionId), sessionOf(w, second.sessionId), 'an ended session lists as stored');
});

const failures: [string, (w: World) => Promise<void>, string, string?][] = [
  ['source revoked', (w) => revokeAgent(w.t, 'alice'), 'source_revoked'],
  ['source certificate serial revoked', (w) => revokeSerial(w.t, 'alice'), 'source_revoked'],
  ['source lost the capability', (w) => setCapabilities(w.t, 'alice', ['chat:read']), 'capability_removed'],
  ['target revoked', (w) => revokeAgent(w.t, 'bob'), 'target_revoked'],
  ['target certificate serial revoked', (w) => revokeSerial(w.t, 'bob'), 'target_revoked', 'alice'],
  ['target lost the capability', (w) => setCapabilities(w.t, 'bob', []), 'capability_removed'],
  ['assignment removed', async (w) => void (await w.t.call('DELETE', `/api/tickets/assignments/bob/${w.instanceScope}`)), 'assignment_removed'],
];
for (const [name, breakIt, reason, caller = 'bob'] of failures) {
  s(`heartbeat: ${name} -> {authorized: false, reason: ${reason}} and the session is dead`, async ({ w }) => {
    const { sessionId } = await openSession(w);
    await breakIt(w);
    const { status, body } = await heartbeat(w, sessionId, caller);
    assert.equal([status, body], [200, { authorized: false, reason }]);
    assert.equal([sessionOf(w, sessionId).status, sessionOf(w, sessionId).endReason], ['dead', reason]);
    assert.equal((await heartbeat(w, sessionId, caller)).body, { authorized: false, reason }, 'stays dead');
  });
}

/** The heartbeat's checks in the spec's order, each with the reason it ends a session with. */
const HEARTBEAT_ORDER: [(w: World) => Promise<unknown>, string][] = [
  [(w) => revokeAgent(w.t, 'alice'), 'source_revoked'],
  [(w) => setCapabilities(w.t, 'alice', ['chat:read']), 'capability_removed'],
  [(w) => revokeAgent(w.t, 'bob'), 'target_revoked'],
  [(w) => setCapabilities(w.t, 'bob', ['chat:read']), 'capability_removed'],
  [(w) => w.t.call('DELETE', `/api/tickets/assignments/bob/${w.instanceScope}`), 'assignment_removed'],
];
HEARTBEAT_ORDER.forEach(([, reason], first) => {
  s(`heartbeat order: with check ${first + 1} and every later one failing, the reason is ${reason}`, async ({ w }) => {
    const { sessionId } = await openSession(w);
    for (const [breakIt] of HEARTBEAT_ORDER.slice(first)) await breakIt(w);
    assert.equal((await heartbeat(w, sessionId, 'alice')).body, { authorized: false, reason });
    assert.is(sessionOf(w, sessionId).endReason, reason);
  });
});

/** PATCH re-validation in the spec's order: source revoked, source capability, target's assignment. */
const PATCH_ORDER = [HEARTBEAT_ORDER[0]!, HEARTBEAT_ORDER[1]!, HEARTBEAT_ORDER[4]!];
PATCH_ORDER.forEach(([, reason], first) => {
  s(`PATCH order: with check ${first + 1} and every later one failing, 409 and the session ends with ${reason}`, async ({ w }) => {
    const { sessionId } = await openSession(w);
    for (const [breakIt] of PATCH_ORDER.slice(first)) await breakIt(w);
    assert.equal((await patch(w, sessionId, { status: 'grace' }, 'alice')).body, { error: 'Session authorization failed' });
    assert.equal([sessionOf(w, sessionId).status, sessionOf(w, sessionId).endReason], ['dead', reason]);
  });
});

s('heartbeat: a session killed by an admin answers reason admin_killed', async ({ w }) => {
  const { sessionId } = await openSession(w);
  await w.t.call('DELETE', `/api/tickets/sessions/${sessionId}`);
  assert.equal((await heartbeat(w, sessionId)).body, { authorized: false, reason: 'admin_killed' });
});

s('heartbeat: 404 for an unknown session or a caller that is not a party; 400 for an admin', async ({ w }) => {
  const { sessionId } = await openSession(w);
  for (const [id, caller] of [['abcdef', 'bob'], [sessionId, 'carol']] as const) {
    const { status, body } = await heartbeat(w, id, caller);
    assert.equal([status, body], [404, NOT_FOUND]);
  }
  assert.is((await w.t.call('POST', `/api/tickets/sessions/${sessionId}/heartbeat`)).status, 400);
});

// ---- PATCH /api/tickets/sessions/:sessionId ----

s('PATCH: 200 {ok}; active <-> grace; lastActivityAt is set by the server, never by the body', async ({ w }) => {
  const { sessionId } = await openSession(w);
  await advance(w, 5_000);
  const { status, body } = await patch(w, sessionId, { status: 'grace', lastActivityAt: '2000-01-01T00:00:00.000Z' });
  assert.equal([status, body], [200, { ok: true }]);
  assert.equal([sessionOf(w, sessionId).status, sessionOf(w, sessionId).lastActivityAt], ['grace', new Date(w.clock.now()).toISOString()]);
  assert.is((await patch(w, sessionId, { status: 'active' }, 'alice')).status, 200);
  assert.is(sessionOf(w, sessionId).status, 'active');
});

s('PATCH: a session removed after it was read answers 404, not {ok}', async ({ w }) => {
  const { sessionId } = await openSession(w);
  const beforeRemoval = new Map([[sessionId, sessionOf(w, sessionId)]]);
  await w.t.services.store.ticketSessions.update((list) => void list.splice(0));
  const { status, body } = await withStaleLookup(w.t.services.ticketing.sessions, 'sessionById', beforeRemoval, () => patch(w, sessionId, { status: 'grace' }));
  assert.equal([status, body], [404, NOT_FOUND]);
});

s('PATCH: 409 Session terminated for a dead session', async ({ w }) => {
  const { sessionId } = await openSession(w);
  await w.t.call('DELETE', `/api/tickets/sessions/${sessionId}`);
  const { status, body } = await patch(w, sessionId, { status: 'active' });
  assert.equal([status, body], [409, { error: 'Session terminated' }]);
});

const PATCH_CHECKS = ['source revoked', 'source certificate serial revoked', 'source lost the capability', 'assignment removed'];
for (const [name, breakIt, reason] of failures.filter(([name]) => PATCH_CHECKS.includes(name))) {
  s(`PATCH: ${name} -> 409, the session ends with reason ${reason}`, async ({ w }) => {
    const { sessionId } = await openSession(w);
    await breakIt(w);
    const { status, body } = await patch(w, sessionId, { status: 'grace' });
    assert.equal([status, body], [409, { error: 'Session authorization failed' }]);
    assert.equal([sessionOf(w, sessionId).status, sessionOf(w, sessionId).endReason], ['dead', reason]);
  });
}

s('PATCH re-validates only source standing and the assignment (target capability is the heartbeat\'s job)', async ({ w }) => {
  const { sessionId } = await openSession(w);
  await setCapabilities(w.t, 'bob', []);
  assert.is((await patch(w, sessionId, { status: 'grace' }, 'alice')).status, 200);
});

s('PATCH: status must be active or grace; 404 unknown or not a party; 400 for an admin', async ({ w }) => {
  const { sessionId } = await openSession(w);
  for (const body of [{}, { status: 'dead' }, { status: 'paused' }]) assert.is((await patch(w, sessionId, body)).body.error, 'Validation failed');
  assert.equal((await patch(w, 'abcdef', { status: 'grace' })).body, NOT_FOUND);
  assert.equal((await patch(w, sessionId, { status: 'grace' }, 'carol')).body, NOT_FOUND);
  assert.is((await w.t.call('PATCH', `/api/tickets/sessions/${sessionId}`, { body: { status: 'grace' } })).status, 400);
});

// ---- admin: DELETE and GET ----

s('DELETE: 200 {ok}, the session is dead with reason admin_killed; 404 Session not found', async ({ w }) => {
  const { sessionId } = await openSession(w);
  assert.equal((await w.t.call('DELETE', `/api/tickets/sessions/${sessionId}`)).body, { ok: true });
  assert.equal([sessionOf(w, sessionId).status, sessionOf(w, sessionId).endReason], ['dead', 'admin_killed']);
  const missing = await w.t.call('DELETE', '/api/tickets/sessions/abcdef');
  assert.equal([missing.status, missing.body], [404, NOT_FOUND]);
});

s('GET: {sessions} including dead ones', async ({ w }) => {
  const first = await openSession(w);
  await openSession(w);
  await w.t.call('DELETE', `/api/tickets/sessions/${first.sessionId}`);
  const { status, body } = await w.t.call('GET', '/api/tickets/sessions');
  assert.is(status, 200);
  assert.equal(body.sessions.map((x: { status: string }) => x.status), ['dead', 'active']);
});

s('killing and listing sessions are admin only', async ({ w }) => {
  const { sessionId } = await openSession(w);
  for (const [method, path] of [['GET', '/api/tickets/sessions'], ['DELETE', `/api/tickets/sessions/${sessionId}`]] as const) {
    assert.equal((await w.t.call(method, path, { as: agent('bob') })).body, { error: 'Insufficient certificate scope' });
  }
});

s.run();
