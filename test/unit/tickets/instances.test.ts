import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_INSTANCES } from '../../../lib/tickets/limits.ts';
import {
  INSTANCE_BODY,
  MINUTE,
  addAgents,
  advance,
  agent,
  makeWorld,
  openSession,
  issueTicket,
  revokeAgent,
  setCapabilities,
  withStaleLookup,
  type World,
} from './fixtures.ts';

const s = suite<{ w: World }>('tickets: instances', {} as { w: World });
s.before.each(async (ctx) => {
  ctx.w = await makeWorld();
});
s.after.each(async ({ w }) => w.t.close());

const instanceOf = (w: World) => w.t.services.store.ticketInstances.value.find((i) => i.instanceId === w.instanceId);
const NOT_FOUND = { error: 'Instance not found' };
const beat = (w: World) => w.t.call('POST', `/api/tickets/instances/${w.instanceId}/heartbeat`, { as: agent('alice') });
/** The instance as the admin listing (GET /api/tickets/scopes) shows it. */
async function listedInstance(w: World) {
  const { body } = await w.t.call('GET', '/api/tickets/scopes');
  return body.instances.find((x: { instanceId: string }) => x.instanceId === w.instanceId);
}

s('POST: 201 for a new scope and agent pair, with a server-generated hex id', async ({ w }) => {
  await addAgents(w.t, ['dave']);
  const { status, body } = await w.t.call('POST', '/api/tickets/instances', { as: agent('dave'), body: INSTANCE_BODY });
  assert.is(status, 201);
  assert.equal(Object.keys(body).sort(), ['instanceId', 'instanceScope', 'ok']);
  assert.is(body.ok, true);
  assert.match(body.instanceId, /^[0-9a-f]+$/);
  assert.is(body.instanceScope, `chat:send:${body.instanceId}`);
  assert.is(w.t.services.store.ticketInstances.value.find((i) => i.instanceId === body.instanceId)?.agentLabel, 'dave');
});

s('POST: 200 on re-registration, same id, transport updated, heartbeat reset, back to active', async ({ w }) => {
  await advance(w, 6 * MINUTE);
  assert.is(instanceOf(w)?.status, 'stale');
  const transport = { strategies: ['tunnel'] };
  const { status, body } = await w.t.call('POST', '/api/tickets/instances', { as: agent('alice'), body: { scope: 'chat:send', transport } });
  assert.is(status, 200);
  assert.equal(body, { ok: true, instanceId: w.instanceId, instanceScope: w.instanceScope });
  const instance = instanceOf(w)!;
  assert.equal(instance.transport, transport);
  assert.is(instance.status, 'active');
  assert.is(instance.lastHeartbeat, new Date(w.clock.now()).toISOString());
  assert.is(w.t.services.store.ticketInstances.value.length, 1);
});

s('POST: 400 Agent certificate label required for an admin certificate', async ({ w }) => {
  const { status, body } = await w.t.call('POST', '/api/tickets/instances', { body: INSTANCE_BODY });
  assert.is(status, 400);
  assert.equal(body, { error: 'Agent certificate label required' });
});

s('POST: 403 Insufficient certificate capability without the base scope capability', async ({ w }) => {
  await addAgents(w.t, ['dave'], ['chat:read']);
  const { status, body } = await w.t.call('POST', '/api/tickets/instances', { as: agent('dave'), body: INSTANCE_BODY });
  assert.is(status, 403);
  assert.equal(body, { error: 'Insufficient certificate capability' });
});

s('POST: 404 Scope not found for a capability no scope declares', async ({ w }) => {
  await addAgents(w.t, ['dave'], ['video:stream']);
  const { status, body } = await w.t.call('POST', '/api/tickets/instances', { as: agent('dave'), body: { ...INSTANCE_BODY, scope: 'video:stream' } });
  assert.is(status, 404);
  assert.equal(body, { error: 'Scope not found' });
});

s('POST: 503 once 200 instances exist', async ({ w }) => {
  const template = instanceOf(w)!;
  await w.t.services.store.ticketInstances.update((list) => {
    for (let i = list.length; i < MAX_INSTANCES; i++) list.push({ ...template, instanceId: `ab${i}`, agentLabel: `filler-${i}` });
  });
  await addAgents(w.t, ['dave']);
  const { status, body } = await w.t.call('POST', '/api/tickets/instances', { as: agent('dave'), body: INSTANCE_BODY });
  assert.is(status, 503);
  assert.equal(body, { error: 'Instance limit reached' });
  assert.is((await w.t.call('POST', '/api/tickets/instances', { as: agent('alice'), body: INSTANCE_BODY })).status, 200, 're-registration is not a new instance');
});

s('POST: body rules (scope format, strategies, direct host 1-255 and port 1024-65535)', async ({ w }) => {
  const bad = [
    { scope: 'chatsend', transport: { strategies: ['relay'] } },
    { scope: 'chat:send' },
    { scope: 'chat:send', transport: { strategies: ['smoke-signal'] } },
    { scope: 'chat:send', transport: { strategies: ['relay'], preferred: 'direct' } },
    { scope: 'chat:send', transport: { strategies: ['direct'], direct: { host: 'example.com' } } },
    { scope: 'chat:send', transport: { strategies: ['direct'], direct: { port: 8443 } } },
    { scope: 'chat:send', transport: { strategies: ['direct'], direct: { host: 'example.com', port: 1023 } } },
    { scope: 'chat:send', transport: { strategies: ['direct'], direct: { host: 'example.com', port: 65536 } } },
    { scope: 'chat:send', transport: { strategies: ['direct'], direct: { host: `${'a'.repeat(250)}.com.x`, port: 8443 } } },
  ];
  for (const body of bad) {
    const r = await w.t.call('POST', '/api/tickets/instances', { as: agent('alice'), body });
    assert.is(r.status, 400, JSON.stringify(body).slice(0, 80));
    assert.is(r.body.error, 'Validation failed');
  }
});

s('DELETE: 200 {ok, instanceId} for the owner; assignments, tickets and sessions go with it', async ({ w }) => {
  await openSession(w);
  await issueTicket(w);
  const { status, body } = await w.t.call('DELETE', `/api/tickets/instances/${w.instanceId}`, { as: agent('alice') });
  assert.is(status, 200);
  assert.equal(body, { ok: true, instanceId: w.instanceId });
  const { store } = w.t.services;
  assert.equal([store.ticketInstances.value, store.ticketAssignments.value, store.tickets.value, store.ticketSessions.value], [[], [], [], []]);
});

s('DELETE: 200 for an admin', async ({ w }) => {
  assert.is((await w.t.call('DELETE', `/api/tickets/instances/${w.instanceId}`)).status, 200);
  assert.is(instanceOf(w), undefined);
});

s('DELETE: another agent gets the same 404 as for an unknown id, and nothing is removed', async ({ w }) => {
  const other = await w.t.call('DELETE', `/api/tickets/instances/${w.instanceId}`, { as: agent('bob') });
  const unknown = await w.t.call('DELETE', '/api/tickets/instances/abcdef', { as: agent('bob') });
  assert.equal([other.status, other.body], [404, NOT_FOUND]);
  assert.equal([unknown.status, unknown.body], [404, NOT_FOUND]);
  assert.ok(instanceOf(w));
});

s('DELETE: instanceId must be hex, 1 to 128 chars', async ({ w }) => {
  for (const id of ['not-hex', 'a'.repeat(129)]) assert.is((await w.t.call('DELETE', `/api/tickets/instances/${id}`)).status, 400, id);
  assert.is((await w.t.call('DELETE', `/api/tickets/instances/${'a'.repeat(128)}`)).status, 404);
});

s('heartbeat: 200 {ok} updates lastHeartbeat and brings a stale instance back to active', async ({ w }) => {
  await advance(w, 6 * MINUTE);
  assert.is(instanceOf(w)?.status, 'stale');
  const { status, body } = await w.t.call('POST', `/api/tickets/instances/${w.instanceId}/heartbeat`, { as: agent('alice') });
  assert.equal([status, body], [200, { ok: true }]);
  assert.is(instanceOf(w)?.status, 'active');
  assert.is(instanceOf(w)?.lastHeartbeat, new Date(w.clock.now()).toISOString());
});

s('heartbeat: within a minute of the last write, heartbeats are kept in memory (at most one write); the listing shows the latest', async ({ w }) => {
  const instances = w.t.services.store.ticketInstances;
  const registered = instanceOf(w)!.lastHeartbeat;
  const version = instances.version;
  for (let i = 0; i < 5; i++) {
    await advance(w, 11_000);
    assert.equal((await beat(w)).body, { ok: true });
    assert.is((await listedInstance(w)).lastHeartbeat, new Date(w.clock.now()).toISOString());
  }
  await Promise.all(Array.from({ length: 20 }, () => beat(w)));
  assert.ok(instances.version - version <= 1, `${instances.version - version} writes`);
  assert.is(instanceOf(w)!.lastHeartbeat, registered, 'nothing written yet: 55 s since the last write');

  await advance(w, 5_000);
  assert.is((await beat(w)).status, 200);
  assert.is(instances.version, version + 1, 'after a minute a heartbeat writes');
  assert.is(instanceOf(w)!.lastHeartbeat, new Date(w.clock.now()).toISOString());
});

s('heartbeat: one held in memory counts for the liveness check', async ({ w }) => {
  await advance(w, 50_000);
  await beat(w);
  assert.is(instanceOf(w)!.lastHeartbeat, new Date(w.clock.now() - 50_000).toISOString(), 'held in memory');
  await advance(w, 4 * MINUTE + 10_000);
  assert.is(instanceOf(w)?.status, 'active', '5 minutes after the last write, 4 min 10 s after the last heartbeat');
  await advance(w, MINUTE);
  assert.is(instanceOf(w)?.status, 'stale');
});

s('heartbeat: admin may send it; other agents and unknown ids get the same 404', async ({ w }) => {
  assert.is((await w.t.call('POST', `/api/tickets/instances/${w.instanceId}/heartbeat`)).status, 200);
  for (const [caller, id] of [['bob', w.instanceId], ['alice', 'abcdef']] as const) {
    const { status, body } = await w.t.call('POST', `/api/tickets/instances/${id}/heartbeat`, { as: agent(caller) });
    assert.equal([status, body], [404, NOT_FOUND]);
  }
});

s('heartbeat: a stale instance removed after it was read answers 404, not {ok}', async ({ w }) => {
  await advance(w, 6 * MINUTE);
  const beforeRemoval = new Map([[w.instanceId, instanceOf(w)]]);
  await w.t.services.store.ticketInstances.update((list) => void list.splice(0));
  const { status, body } = await withStaleLookup(w.t.services.ticketing.instances, 'instanceById', beforeRemoval, () => beat(w));
  assert.equal([status, body], [404, NOT_FOUND]);
});

s('heartbeat: 400 for an agent certificate without a label', async ({ w }) => {
  const { status, body } = await w.t.call('POST', `/api/tickets/instances/${w.instanceId}/heartbeat`, { as: { dn: 'CN=agent:' } });
  assert.equal([status, body], [400, { error: 'Agent certificate label required' }]);
});

s('heartbeat: 404 when the owner is revoked, and the instance is dead from then on', async ({ w }) => {
  await revokeAgent(w.t, 'alice');
  for (const caller of [agent('alice'), 'admin' as const]) {
    const { status, body } = await w.t.call('POST', `/api/tickets/instances/${w.instanceId}/heartbeat`, { as: caller });
    assert.equal([status, body], [404, NOT_FOUND]);
  }
  assert.is(instanceOf(w)?.status, 'dead');
});

s('heartbeat: 404 when the owner no longer holds the capability', async ({ w }) => {
  await setCapabilities(w.t, 'alice', ['chat:read']);
  const { status } = await w.t.call('POST', `/api/tickets/instances/${w.instanceId}/heartbeat`, { as: agent('alice') });
  assert.is(status, 404);
  assert.is(instanceOf(w)?.status, 'dead');
});

s('re-registration revives a dead instance (any -> active)', async ({ w }) => {
  await setCapabilities(w.t, 'alice', ['chat:read']);
  await w.t.call('POST', `/api/tickets/instances/${w.instanceId}/heartbeat`, { as: agent('alice') });
  await setCapabilities(w.t, 'alice', ['chat:send']);
  assert.is((await w.t.call('POST', '/api/tickets/instances', { as: agent('alice'), body: INSTANCE_BODY })).status, 200);
  assert.is(instanceOf(w)?.status, 'active');
});

s.run();
