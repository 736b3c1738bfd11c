import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MINUTE, advance, agent, issueTicket, makeWorld, openSession, requestTicket, type World } from './fixtures.ts';

const s = suite<{ w: World }>('tickets: liveness and cleanup timers', {} as { w: World });
s.before.each(async (ctx) => {
  ctx.w = await makeWorld();
});
s.after.each(async ({ w }) => w.t.close());

const HOUR = 60 * MINUTE;
const statusOf = (w: World) => w.t.services.store.ticketInstances.value.find((i) => i.instanceId === w.instanceId)?.status;
const instanceHeartbeat = (w: World) => w.t.call('POST', `/api/tickets/instances/${w.instanceId}/heartbeat`, { as: agent('alice') });

/** Moves time in steps, heartbeating the instance so that only the thing under test ages. */
async function keepInstanceAlive(w: World, ms: number, step = 30 * MINUTE): Promise<void> {
  for (let left = ms; left > 0; left -= step) {
    await advance(w, Math.min(step, left));
    assert.is((await instanceHeartbeat(w)).status, 200);
  }
}

s('liveness: active until 5 minutes without a heartbeat, then stale; ticket requests get 503', async ({ w }) => {
  await advance(w, 4 * MINUTE);
  assert.is(statusOf(w), 'active');
  assert.is((await requestTicket(w)).status, 201);
  await advance(w, MINUTE);
  assert.is(statusOf(w), 'stale');
  assert.equal((await requestTicket(w)).body, { error: 'Instance is stale' });
});

s('liveness: heartbeats keep an instance active', async ({ w }) => {
  for (let i = 0; i < 5; i++) {
    await advance(w, 4 * MINUTE);
    await instanceHeartbeat(w);
  }
  assert.is(statusOf(w), 'active');
});

s('liveness: removed after 1 hour without a heartbeat, with its assignments, tickets and sessions', async ({ w }) => {
  await openSession(w);
  await issueTicket(w);
  await advance(w, 59 * MINUTE);
  assert.is(statusOf(w), 'stale');
  await advance(w, MINUTE);
  const { store } = w.t.services;
  assert.equal([store.ticketInstances.value, store.ticketAssignments.value, store.tickets.value, store.ticketSessions.value], [[], [], [], []]);
  assert.equal((await requestTicket(w)).body, { error: 'Not found' });
});

s('cleanup: tickets older than 1 hour are removed, used or not', async ({ w }) => {
  const { ticketId: usedId } = await openSession(w);
  const unused = await issueTicket(w);
  await keepInstanceAlive(w, 30 * MINUTE);
  const younger = await issueTicket(w);
  await keepInstanceAlive(w, 29 * MINUTE, MINUTE);
  assert.is(w.t.services.store.tickets.value.length, 3);
  await keepInstanceAlive(w, MINUTE, MINUTE);
  const ids = w.t.services.store.tickets.value.map((t) => t.id);
  assert.equal(ids, [younger]);
  assert.not.ok(ids.includes(usedId) || ids.includes(unused));
});

s('cleanup: sessions dead for 24 hours are removed; live ones stay', async ({ w }) => {
  const doomed = await openSession(w);
  const live = await openSession(w);
  await w.t.call('DELETE', `/api/tickets/sessions/${doomed.sessionId}`);
  await keepInstanceAlive(w, 24 * HOUR - 30 * MINUTE);
  assert.is(w.t.services.store.ticketSessions.value.length, 2);
  await keepInstanceAlive(w, 30 * MINUTE, MINUTE);
  assert.equal(w.t.services.store.ticketSessions.value.map((x) => x.sessionId), [live.sessionId]);
});

s('sweeps that find nothing write nothing', async ({ w }) => {
  await openSession(w);
  await issueTicket(w);
  const { store } = w.t.services;
  const collections = [store.ticketScopes, store.ticketInstances, store.ticketAssignments, store.tickets, store.ticketSessions];
  const versions = collections.map((c) => c.version);
  await advance(w, 3 * MINUTE);
  assert.equal(collections.map((c) => c.version), versions);
});

s('cleanup: what a crash in the middle of an instance removal leaves behind goes within a minute', async ({ w }) => {
  await openSession(w);
  await issueTicket(w);
  const { store } = w.t.services;
  await store.ticketInstances.update((list) => void list.splice(0)); // the instance's removal reached the disk, its dependents' did not
  assert.equal([store.ticketAssignments.value.length, store.tickets.value.length, store.ticketSessions.value.length], [1, 2, 1]);
  await advance(w, MINUTE);
  assert.equal([store.ticketAssignments.value, store.tickets.value, store.ticketSessions.value], [[], [], []]);
});

s('closing the app stops the timers', async ({ w }) => {
  await w.t.close({ keep: true });
  const before = w.t.services.store.ticketInstances.value;
  w.clock.advance(2 * HOUR);
  assert.is(w.t.services.store.ticketInstances.value, before);
});

s.run();
