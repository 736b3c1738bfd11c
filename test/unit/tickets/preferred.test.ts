import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CHAT_SCOPE, agent, issueTicket, makeWorld, registerInstance, validateTicket, type World } from './fixtures.ts';

// Inbox and validate filled `preferred` from the scope even when the instance
// does not offer that strategy ({"strategies":["direct"],"preferred":"tunnel"}).

const s = suite<{ w: World }>('tickets: preferred strategy', {} as { w: World });
s.before.each(async (ctx) => {
  ctx.w = await makeWorld();
});
s.after.each(async ({ w }) => w.t.close());

const SCOPE_PREFERRED = CHAT_SCOPE.transport.preferred;

const CASES: [transport: { strategies: string[]; preferred?: string }, expected: string][] = [
  [{ strategies: ['direct'] }, 'direct'],
  [{ strategies: ['tunnel', 'direct'] }, 'tunnel'],
  [{ strategies: ['direct', 'tunnel'] }, 'direct'],
  [{ strategies: ['tunnel', 'relay'] }, 'relay'],
  [{ strategies: ['relay', 'direct'], preferred: 'direct' }, 'direct'],
  [{ strategies: ['tunnel'], preferred: 'tunnel' }, 'tunnel'],
];

for (const [transport, expected] of CASES) {
  s(`instance ${JSON.stringify(transport)} with scope preferred ${SCOPE_PREFERRED}: ${expected}`, async ({ w }) => {
    const body = { scope: 'chat:send', transport: { ...transport, ...(transport.strategies.includes('direct') && { direct: { host: 'alice.example.com', port: 8443 } }) } };
    const { instanceId } = await registerInstance(w.t, 'alice', body);
    assert.is(instanceId, w.instanceId);
    const ticketId = await issueTicket(w);
    const inbox = await w.t.call('GET', '/api/tickets/inbox', { as: agent('bob') });
    const entry = inbox.body.tickets.find((t: { id: string }) => t.id === ticketId);
    assert.equal([entry.transport.strategies, entry.transport.preferred], [transport.strategies, expected]);
    const validated = await validateTicket(w, ticketId);
    assert.is(validated.status, 200);
    assert.equal([validated.body.transport.strategies, validated.body.transport.preferred], [transport.strategies, expected]);
    assert.ok(validated.body.transport.strategies.includes(validated.body.transport.preferred));
  });
}

s.run();
