import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { defined } from '../../helpers/defined.ts';
import { addAgents, agent, makeWorld, revokeAgent, revokeSerial, setCapabilities, type World } from './fixtures.ts';

const s = suite<{ w: World }>('tickets: assignments', {} as { w: World });
s.before.each(async (ctx) => {
  ctx.w = await makeWorld();
});
s.after.each(async ({ w }) => w.t.close());

const create = (w: World, body: unknown) => w.t.call('POST', '/api/tickets/assignments', { body });

s('POST: 201 {ok, assignment} for a new one, with assignedAt and the admin as assignedBy', async ({ w }) => {
  const { status, body } = await create(w, { agentLabel: 'carol', instanceScope: w.instanceScope });
  assert.is(status, 201);
  assert.equal(body, {
    ok: true,
    assignment: { agentLabel: 'carol', instanceScope: w.instanceScope, assignedAt: new Date(w.clock.now()).toISOString(), assignedBy: 'admin' },
  });
});

s('POST: 200 {ok, assignment} when it already exists, unchanged', async ({ w }) => {
  const before = w.t.services.store.ticketAssignments.value;
  const { status, body } = await create(w, { agentLabel: 'bob', instanceScope: w.instanceScope });
  assert.is(status, 200);
  assert.equal(body.assignment, before[0]);
  assert.is(w.t.services.store.ticketAssignments.value.length, 1);
});

s('POST: 404 Agent not found for an unknown or revoked agent', async ({ w }) => {
  await revokeAgent(w.t, 'carol');
  await addAgents(w.t, ['dave']);
  await revokeSerial(w.t, 'dave');
  for (const agentLabel of ['nobody', 'carol', 'dave']) {
    const { status, body } = await create(w, { agentLabel, instanceScope: w.instanceScope });
    assert.equal([status, body], [404, { error: 'Agent not found' }], agentLabel);
  }
});

s('POST: 400 Agent missing capability without the base scope capability', async ({ w }) => {
  await setCapabilities(w.t, 'carol', ['chat:read']);
  const { status, body } = await create(w, { agentLabel: 'carol', instanceScope: w.instanceScope });
  assert.equal([status, body], [400, { error: 'Agent missing capability' }]);
});

s('POST: 404 Instance not found for an unknown or dead instance', async ({ w }) => {
  const unknown = await create(w, { agentLabel: 'carol', instanceScope: 'chat:send:abcdef' });
  assert.equal([unknown.status, unknown.body], [404, { error: 'Instance not found' }]);
  await w.t.services.store.ticketInstances.update((list) => void (defined(list[0], 'the instance').status = 'dead'));
  const dead = await create(w, { agentLabel: 'carol', instanceScope: w.instanceScope });
  assert.equal([dead.status, dead.body], [404, { error: 'Instance not found' }]);
});

s('POST: checks run in order: agent, capability, instance', async ({ w }) => {
  await setCapabilities(w.t, 'carol', []);
  assert.is((await create(w, { agentLabel: 'nobody', instanceScope: 'chat:send:abcdef' })).body.error, 'Agent not found');
  assert.is((await create(w, { agentLabel: 'carol', instanceScope: 'chat:send:abcdef' })).body.error, 'Agent missing capability');
});

s('POST: agentLabel 1-100 chars, instanceScope <scope>:<action>:<instanceId> 1-200 chars', async ({ w }) => {
  for (const body of [
    { instanceScope: w.instanceScope },
    { agentLabel: '', instanceScope: w.instanceScope },
    { agentLabel: 'x'.repeat(101), instanceScope: w.instanceScope },
    { agentLabel: 'carol' },
    { agentLabel: 'carol', instanceScope: 'chat:send' },
    { agentLabel: 'carol', instanceScope: `chat:send:${'a'.repeat(200)}` },
  ]) {
    assert.is((await create(w, body)).status, 400, JSON.stringify(body).slice(0, 60));
  }
});

s('POST and DELETE: the instance id in instanceScope may be any case; it is stored and compared lower-case', async ({ w }) => {
  const upper = `chat:send:${w.instanceId.toUpperCase()}`;
  const { status, body } = await create(w, { agentLabel: 'carol', instanceScope: upper });
  assert.is(status, 201, JSON.stringify(body));
  assert.is(body.assignment.instanceScope, w.instanceScope);
  assert.is((await create(w, { agentLabel: 'bob', instanceScope: upper })).status, 200, 'the same assignment as the lower-case one');
  assert.equal((await w.t.call('DELETE', `/api/tickets/assignments/carol/${upper}`)).body, { ok: true });
});

s('GET: {assignments} with optional agentLabel and instanceScope filters', async ({ w }) => {
  await create(w, { agentLabel: 'carol', instanceScope: w.instanceScope });
  const all = await w.t.call('GET', '/api/tickets/assignments');
  assert.is(all.status, 200);
  assert.equal(all.body.assignments.map((a: { agentLabel: string }) => a.agentLabel), ['bob', 'carol']);
  const carol = await w.t.call('GET', '/api/tickets/assignments?agentLabel=carol');
  assert.equal(carol.body.assignments.map((a: { agentLabel: string }) => a.agentLabel), ['carol']);
  const byScope = await w.t.call('GET', `/api/tickets/assignments?instanceScope=${encodeURIComponent(w.instanceScope)}&agentLabel=bob`);
  assert.is(byScope.body.assignments.length, 1);
  // the instance id in upper case, as create and DELETE take it
  const upper = w.instanceScope.replace(/[^:]+$/, (id: string) => id.toUpperCase());
  assert.is.not(upper, w.instanceScope);
  const byUpper = await w.t.call('GET', `/api/tickets/assignments?instanceScope=${encodeURIComponent(upper)}`);
  assert.equal(byUpper.body.assignments.map((a: { agentLabel: string }) => a.agentLabel), ['bob', 'carol']);
  const none = await w.t.call('GET', '/api/tickets/assignments?instanceScope=chat:send:ff');
  assert.equal(none.body, { assignments: [] });
});

s('DELETE /:agentLabel/:instanceScope: 200 {ok}, then 404 Assignment not found', async ({ w }) => {
  const path = `/api/tickets/assignments/bob/${w.instanceScope}`;
  assert.equal((await w.t.call('DELETE', path)).body, { ok: true });
  assert.equal(w.t.services.store.ticketAssignments.value, []);
  const again = await w.t.call('DELETE', path);
  assert.equal([again.status, again.body], [404, { error: 'Assignment not found' }]);
});

s('DELETE accepts percent-encoded segments', async ({ w }) => {
  const path = `/api/tickets/assignments/${encodeURIComponent('bob')}/${encodeURIComponent(w.instanceScope)}`;
  assert.is((await w.t.call('DELETE', path)).status, 200);
});

s('assignments are admin only', async ({ w }) => {
  for (const [method, path] of [['POST', '/api/tickets/assignments'], ['GET', '/api/tickets/assignments'], ['DELETE', `/api/tickets/assignments/bob/${w.instanceScope}`]] as const) {
    const { status, body } = await w.t.call(method, path, { as: agent('alice'), body: method === 'POST' ? { agentLabel: 'carol', instanceScope: w.instanceScope } : undefined });
    assert.equal([status, body], [403, { error: 'Insufficient certificate scope' }], `${method} ${path}`);
  }
});

s.run();
