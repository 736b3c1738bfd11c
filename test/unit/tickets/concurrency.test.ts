import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_ACTIVE_SESSIONS, MAX_INSTANCES, MAX_TICKETS } from '../../../lib/tickets/limits.ts';
import { defined } from '../../helpers/defined.ts';
import { withTimeout } from '../../helpers/timeout.ts';
import { INSTANCE_BODY, addAgents, agent, issueTicket, makeWorld, openSession, validateTicket, type World } from './fixtures.ts';

const s = suite<{ w: World }>('tickets: concurrency', {} as { w: World });
s.before.each(async (ctx) => {
  ctx.w = await makeWorld();
});
s.after.each(async ({ w }) => w.t.close());

const countBy = (statuses: number[]) => statuses.reduce<Record<number, number>>((counts, status) => ({ ...counts, [status]: (counts[status] ?? 0) + 1 }), {});

s('50 concurrent validations of one ticket: exactly one valid: true', async ({ w }) =>
  withTimeout('validations', 10_000, async () => {
    const ticketId = await issueTicket(w);
    const answers = await Promise.all(Array.from({ length: 50 }, () => validateTicket(w, ticketId)));
    assert.is(answers.filter((a) => a.body.valid === true).length, 1);
    assert.equal(countBy(answers.map((a) => a.status)), { 200: 1, 401: 49 });
    assert.ok(answers.filter((a) => a.status === 401).every((a) => a.body.error === 'Invalid ticket'));
  }),
);

s('50 concurrent session creations for one ticket: exactly one 201, the rest 409', async ({ w }) =>
  withTimeout('sessions', 10_000, async () => {
    const ticketId = await issueTicket(w);
    assert.is((await validateTicket(w, ticketId)).status, 200);
    const answers = await Promise.all(
      Array.from({ length: 50 }, () => w.t.call('POST', '/api/tickets/sessions', { as: agent('bob'), body: { ticketId } })),
    );
    assert.equal(countBy(answers.map((a) => a.status)), { 201: 1, 409: 49 });
    assert.is(w.t.services.store.ticketSessions.value.length, 1);
  }),
);

s('concurrent ticket requests never exceed the rate limit', async ({ w }) =>
  withTimeout('requests', 10_000, async () => {
    const answers = await Promise.all(
      Array.from({ length: 30 }, () => w.t.call('POST', '/api/tickets', { as: agent('alice'), body: { scope: 'chat:send', instanceId: w.instanceId, target: 'bob' } })),
    );
    assert.equal(countBy(answers.map((a) => a.status)), { 201: 10, 429: 20 });
    assert.is(w.t.services.store.tickets.value.length, 10);
  }),
);

s('20 concurrent validations of one ticket on the durable store: exactly one wins, and disk agrees', async () => {
  const w = await makeWorld({ durable: true });
  try {
    await withTimeout('durable validations', 10_000, async () => {
      const ticketId = await issueTicket(w);
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => validateTicket(w, ticketId, i % 4 === 0 ? 'carol' : 'bob')));
      assert.equal(countBy(answers.map((a) => a.status)), { 200: 1, 401: 19 });
      const onDisk = await w.t.services.store.tickets.onDisk();
      assert.is(onDisk.find((t) => t.id === ticketId)?.used, true);
    });
  } finally {
    await w.t.close();
  }
});

s('validation and an admin revoke in either order: the ticket ends used and revoked, and opens no session', async ({ w }) =>
  withTimeout('validate vs revoke', 10_000, async () => {
    const revoke = (ticketId: string) => w.t.call('DELETE', `/api/tickets/${ticketId}`);
    const assertEndState = async (ticketId: string) => {
      const ticket = defined(w.t.services.store.tickets.get(ticketId), 'the ticket');
      assert.equal([ticket.used, ticket.revokedAt !== null], [true, true]);
      const session = await w.t.call('POST', '/api/tickets/sessions', { as: agent('bob'), body: { ticketId } });
      assert.equal([session.status, session.body], [400, { error: 'Invalid ticket state' }]);
    };
    const validatedFirst = await issueTicket(w);
    assert.is((await validateTicket(w, validatedFirst)).status, 200);
    assert.is((await revoke(validatedFirst)).status, 200);
    await assertEndState(validatedFirst);

    const revokedFirst = await issueTicket(w);
    assert.is((await revoke(revokedFirst)).status, 200);
    const late = await validateTicket(w, revokedFirst);
    assert.equal([late.status, late.body], [401, { error: 'Invalid ticket' }]);
    await assertEndState(revokedFirst);
  }),
);

s('concurrent re-registrations by one agent for one scope: one instance, one 201, the rest 200', async ({ w }) =>
  withTimeout('registrations', 10_000, async () => {
    await addAgents(w.t, ['dave']);
    const answers = await Promise.all(Array.from({ length: 10 }, () => w.t.call('POST', '/api/tickets/instances', { as: agent('dave'), body: INSTANCE_BODY })));
    assert.equal(countBy(answers.map((a) => a.status)), { 200: 9, 201: 1 });
    assert.is(new Set(answers.map((a) => a.body.instanceId)).size, 1);
    assert.is(w.t.services.store.ticketInstances.value.filter((i) => i.agentLabel === 'dave').length, 1);
  }),
);

s('concurrent creations of one assignment: one 201, the rest 200, one record', async ({ w }) =>
  withTimeout('assignments', 10_000, async () => {
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => w.t.call('POST', '/api/tickets/assignments', { body: { agentLabel: 'carol', instanceScope: w.instanceScope } })),
    );
    assert.equal(countBy(answers.map((a) => a.status)), { 200: 9, 201: 1 });
    assert.is(w.t.services.store.ticketAssignments.value.filter((a) => a.agentLabel === 'carol').length, 1);
  }),
);

s('the caps hold under concurrency: one free slot, one winner (instances, tickets, sessions)', async ({ w }) =>
  withTimeout('caps', 10_000, async () => {
    const { store } = w.t.services;
    const instance = defined(store.ticketInstances.value[0], 'the instance');
    await store.ticketInstances.update((list) => {
      for (let i = list.length; i < MAX_INSTANCES - 1; i++) list.push({ ...instance, instanceId: `ab${i}`, agentLabel: `filler-${i}` });
    });
    await addAgents(w.t, ['dave']);
    const registrations = await Promise.all(['carol', 'dave'].map((label) => w.t.call('POST', '/api/tickets/instances', { as: agent(label), body: INSTANCE_BODY })));
    assert.equal(countBy(registrations.map((a) => a.status)), { 201: 1, 503: 1 });

    const { ticketId: usedTicketId } = await openSession(w);
    const ticket = defined(store.tickets.get(usedTicketId), 'a ticket');
    await store.tickets.update((list) => {
      for (let i = list.length; i < MAX_TICKETS - 1; i++) list.push({ ...ticket, id: i.toString(16).padStart(64, '0') });
    });
    const requests = await Promise.all(
      Array.from({ length: 5 }, () => w.t.call('POST', '/api/tickets', { as: agent('alice'), body: { scope: 'chat:send', instanceId: w.instanceId, target: 'bob' } })),
    );
    assert.equal(countBy(requests.map((a) => a.status)), { 201: 1, 503: 4 });
    const freshTicket = defined(requests.find((a) => a.status === 201), 'the issued ticket').body.ticket.id;

    const session = defined(store.ticketSessions.value[0], 'the session');
    await store.ticketSessions.update((list) => {
      for (let i = list.length; i < MAX_ACTIVE_SESSIONS - 1; i++) list.push({ ...session, sessionId: `f${i}`, ticketId: `e${i}` });
    });
    await store.tickets.update((list) => void list.splice(0, 10)); // room for one more ticket
    const second = await w.t.call('POST', '/api/tickets', { as: agent('alice'), body: { scope: 'chat:send', instanceId: w.instanceId, target: 'bob' } });
    assert.is(second.status, 201, JSON.stringify(second.body));
    for (const id of [freshTicket, second.body.ticket.id]) assert.is((await validateTicket(w, id)).status, 200);
    const sessions = await Promise.all(
      [freshTicket, second.body.ticket.id].map((ticketId) => w.t.call('POST', '/api/tickets/sessions', { as: agent('bob'), body: { ticketId } })),
    );
    assert.equal(countBy(sessions.map((a) => a.status)), { 201: 1, 503: 1 });
  }),
);

s.run();
