import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createTestApp } from '../../../lib/testing.ts';
import { defined } from '../../helpers/defined.ts';
import { agent, issueTicket, makeWorld, openSession, validateTicket } from './fixtures.ts';

const s = suite('tickets: durability');

s('scopes, instances, assignments, tickets and sessions survive a restart; a consumed ticket stays consumed', async () => {
  const w = await makeWorld({ durable: true });
  const { ticketId: consumed, sessionId } = await openSession(w);
  const waiting = await issueTicket(w);
  const before = w.t.services.store;
  const snapshot = [before.ticketScopes, before.ticketInstances, before.ticketAssignments, before.tickets, before.ticketSessions].map((c) => c.value);
  await w.t.close({ keep: true });

  const t = await createTestApp({ dir: w.t.dir, clock: w.clock });
  try {
    const after = t.services.store;
    assert.equal([after.ticketScopes, after.ticketInstances, after.ticketAssignments, after.tickets, after.ticketSessions].map((c) => c.value), snapshot);
    assert.equal([...t.services.ticketing.capabilityNames()].sort(), ['chat:read', 'chat:send']);
    const again = await t.call('POST', '/api/tickets/validate', { as: agent('bob'), body: { ticketId: consumed } });
    assert.equal([again.status, again.body], [401, { error: 'Invalid ticket' }]);
    const inbox = await t.call('GET', '/api/tickets/inbox', { as: agent('bob') });
    assert.equal(inbox.body.tickets.map((x: { id: string }) => x.id), [waiting]);
    assert.equal((await t.call('POST', `/api/tickets/sessions/${sessionId}/heartbeat`, { as: agent('bob') })).body, { authorized: true });
  } finally {
    await t.close();
  }
});

s('heartbeats held in memory are written when the app closes', async () => {
  const w = await makeWorld({ durable: true });
  const { sessionId } = await openSession(w);
  w.clock.advance(20_000);
  const at = new Date(w.clock.now()).toISOString();
  assert.is((await w.t.call('POST', `/api/tickets/sessions/${sessionId}/heartbeat`, { as: agent('bob') })).status, 200);
  assert.is((await w.t.call('POST', `/api/tickets/instances/${w.instanceId}/heartbeat`, { as: agent('alice') })).status, 200);
  assert.is.not(defined(w.t.services.store.ticketSessions.value[0], 'the session').lastActivityAt, at, 'held in memory until now');
  await w.t.close({ keep: true });

  const t = await createTestApp({ dir: w.t.dir, clock: w.clock });
  try {
    assert.is(t.services.store.ticketSessions.value[0]?.lastActivityAt, at);
    assert.is(t.services.store.ticketInstances.value[0]?.lastHeartbeat, at);
  } finally {
    await t.close();
  }
});

s('an instance heartbeating every 30 s is on disk at most a minute behind (what a crash would leave)', async () => {
  const w = await makeWorld({ durable: true });
  for (let i = 0; i < 10; i++) {
    w.clock.advance(30_000);
    assert.is((await w.t.call('POST', `/api/tickets/instances/${w.instanceId}/heartbeat`, { as: agent('alice') })).status, 200);
  }
  await w.t.services.store.flush();
  const onDisk = await w.t.services.store.ticketInstances.onDisk();
  assert.ok(w.clock.now() - Date.parse(defined(onDisk[0], 'the instance on disk').lastHeartbeat) < 60_000, 'at most a minute behind');
  await w.t.close();
});

s('a validation answered 200 is on disk before the answer', async () => {
  const w = await makeWorld({ durable: true });
  try {
    const ticketId = await issueTicket(w);
    assert.is((await validateTicket(w, ticketId)).status, 200);
    const onDisk = await w.t.services.store.tickets.onDisk();
    assert.is(onDisk.find((x) => x.id === ticketId)?.used, true);
  } finally {
    await w.t.close();
  }
});

s.run();
