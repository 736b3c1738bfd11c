import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { withTimeout } from '../../helpers/timeout.ts';
import { agent, issueTicket, makeWorld, validateTicket, type World } from './fixtures.ts';

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

s.run();
