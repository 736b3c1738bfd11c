import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routes } from '../../../handlers/index.ts';
import { agent, issueTicket, makeWorld, openSession, revokeAgent, revokeSerial, setCapabilities, validateTicket, type World } from './fixtures.ts';

// A revoked agent, one whose capability was withdrawn, or an earlier certificate of a re-issued
// label, after its tickets were issued. Revoking writes the registry first and the revocation list
// (CRL) second, so both states occur.

const s = suite<{ w: World }>('tickets: revoked agents', {} as { w: World });
s.before.each(async (ctx) => {
  ctx.w = await makeWorld();
});
s.after.each(async ({ w }) => w.t.close());

const inboxOf = async (w: World, label: string) => (await w.t.call('GET', '/api/tickets/inbox', { as: agent(label) })).body;
const createSession = (w: World, ticketId: string) => w.t.call('POST', '/api/tickets/sessions', { as: agent('bob'), body: { ticketId } });

s('a certificate on the revocation list: 403 Certificate has been revoked on every ticket route an agent may call', async ({ w }) => {
  const { ticketId, sessionId } = await openSession(w);
  await revokeSerial(w.t, 'bob');
  const calls = [
    ['GET', '/api/tickets/inbox', undefined],
    ['POST', '/api/tickets/validate', { ticketId }],
    ['POST', '/api/tickets/sessions', { ticketId }],
    ['POST', `/api/tickets/sessions/${sessionId}/heartbeat`, undefined],
    ['PATCH', `/api/tickets/sessions/${sessionId}`, { status: 'grace' }],
    ['POST', '/api/tickets', { scope: 'chat:send', instanceId: w.instanceId, target: 'alice' }],
    ['POST', '/api/tickets/instances', { scope: 'chat:send', transport: { strategies: ['relay'] } }],
    ['POST', `/api/tickets/instances/${w.instanceId}/heartbeat`, undefined],
    ['DELETE', `/api/tickets/instances/${w.instanceId}`, undefined],
  ] as const;
  const asPattern = (path: string) => path.replace(sessionId, ':sessionId').replace(w.instanceId, ':instanceId');
  const agentRoutes = routes.filter((r) => r.path.startsWith('/api/tickets') && r.access.roles.includes('agent')).map((r) => `${r.method} ${r.path}`);
  assert.equal(calls.map(([method, path]) => `${method} ${asPattern(path)}`).sort(), agentRoutes.sort(), 'every ticket route an agent may call');
  for (const [method, path, body] of calls) {
    const answer = await w.t.call(method, path, { as: agent('bob'), body });
    assert.equal([answer.status, answer.body], [403, { error: 'Certificate has been revoked' }], `${method} ${path}`);
  }
});

s('a target revoked after the ticket was issued: validation answers 401 Invalid ticket and consumes nothing', async ({ w }) => {
  const ticketId = await issueTicket(w);
  await revokeAgent(w.t, 'bob');
  const { status, body } = await validateTicket(w, ticketId);
  assert.equal([status, body], [401, { error: 'Invalid ticket' }]);
  assert.is(w.t.services.store.tickets.get(ticketId)?.used, false);
});

s('a target that lost the capability after the ticket was issued: validation answers 401 and consumes nothing', async ({ w }) => {
  const ticketId = await issueTicket(w);
  await setCapabilities(w.t, 'bob', ['chat:read']);
  const { status, body } = await validateTicket(w, ticketId);
  assert.equal([status, body], [401, { error: 'Invalid ticket' }]);
  assert.is(w.t.services.store.tickets.get(ticketId)?.used, false);
  await setCapabilities(w.t, 'bob', ['chat:send']);
  assert.is((await validateTicket(w, ticketId)).status, 200, 'the capability back, the ticket works');
});

s('the inbox of a revoked target is empty, and one without the capability lists none of that scope', async ({ w }) => {
  const ticketId = await issueTicket(w);
  assert.equal((await inboxOf(w, 'bob')).tickets.map((t: { id: string }) => t.id), [ticketId]);
  await setCapabilities(w.t, 'bob', ['chat:read']);
  assert.equal(await inboxOf(w, 'bob'), { tickets: [] });
  await setCapabilities(w.t, 'bob', ['chat:send']);
  assert.equal((await inboxOf(w, 'bob')).tickets.map((t: { id: string }) => t.id), [ticketId], 'back once the capability is');
  await revokeAgent(w.t, 'bob');
  assert.equal(await inboxOf(w, 'bob'), { tickets: [] });
});

s('a target revoked between validation and session creation: 400 Invalid ticket state, no session', async ({ w }) => {
  const ticketId = await issueTicket(w);
  assert.is((await validateTicket(w, ticketId)).status, 200);
  await revokeAgent(w.t, 'bob');
  const { status, body } = await createSession(w, ticketId);
  assert.equal([status, body], [400, { error: 'Invalid ticket state' }]);
  assert.equal(w.t.services.store.ticketSessions.value, []);
});

s('a revoked target still learns that its live session ended: heartbeat answers authorized: false, target_revoked', async ({ w }) => {
  const { sessionId } = await openSession(w);
  await revokeAgent(w.t, 'bob');
  const { status, body } = await w.t.call('POST', `/api/tickets/sessions/${sessionId}/heartbeat`, { as: agent('bob') });
  assert.equal([status, body], [200, { authorized: false, reason: 'target_revoked' }]);
});

s('an earlier certificate of a re-issued label acts for nobody: the generic answers of each route, never the label\'s tickets or sessions', async ({ w }) => {
  const { ticketId, sessionId } = await openSession(w);
  const waiting = await issueTicket(w);
  await w.t.services.store.agents.update((agents) => {
    for (const record of agents) if (record.label === 'alice' || record.label === 'bob') record.serial = `${record.serial}0`;
  });
  const oldBob = agent('bob');
  // tickets.md: agent-facing endpoints answer authorization failures with 404 or 401, generic
  for (const [method, path, body, status, answered] of [
    ['GET', '/api/tickets/inbox', undefined, 200, { tickets: [] }],
    ['POST', '/api/tickets/validate', { ticketId: waiting }, 401, { error: 'Invalid ticket' }],
    ['POST', '/api/tickets/sessions', { ticketId }, 400, { error: 'Invalid ticket state' }],
    ['POST', `/api/tickets/sessions/${sessionId}/heartbeat`, undefined, 404, { error: 'Session not found' }],
    ['PATCH', `/api/tickets/sessions/${sessionId}`, { status: 'grace' }, 404, { error: 'Session not found' }],
  ] as const) {
    const answer = await w.t.call(method, path, { as: oldBob, body });
    assert.equal([answer.status, answer.body], [status, answered], `${method} ${path}`);
  }
  // instance registration is the one ticket route whose spec answer is a 403: the capability it lacks
  const registered = await w.t.call('POST', '/api/tickets/instances', { as: oldBob, body: { scope: 'chat:send', transport: { strategies: ['relay'] } } });
  assert.equal([registered.status, registered.body], [403, { error: 'Insufficient certificate capability' }]);
  // what it was refused stays as it was: the ticket unused, the session live
  assert.is(w.t.services.store.tickets.value.find((t) => t.id === waiting)?.used, false);
  assert.is(w.t.services.store.ticketSessions.value.find((x) => x.sessionId === sessionId)?.status, 'active');
  const oldAlice = agent('alice');
  const request = await w.t.call('POST', '/api/tickets', { as: oldAlice, body: { scope: 'chat:send', instanceId: w.instanceId, target: 'bob' } });
  assert.equal([request.status, request.body], [404, { error: 'Not found' }]);
  for (const [method, path] of [['POST', `/api/tickets/instances/${w.instanceId}/heartbeat`], ['DELETE', `/api/tickets/instances/${w.instanceId}`]] as const) {
    const answer = await w.t.call(method, path, { as: oldAlice });
    assert.equal([answer.status, answer.body], [404, { error: 'Instance not found' }], `${method} ${path}`);
  }
  assert.equal([w.t.services.store.tickets.get(waiting)?.used, w.t.services.store.ticketInstances.get(w.instanceId)?.status], [false, 'active']);
});

s('the source of a ticket cannot validate it: 401, nothing consumed', async ({ w }) => {
  const ticketId = await issueTicket(w);
  const { status, body } = await validateTicket(w, ticketId, 'alice');
  assert.equal([status, body], [401, { error: 'Invalid ticket' }]);
  assert.is(w.t.services.store.tickets.get(ticketId)?.used, false);
});

s.run();
