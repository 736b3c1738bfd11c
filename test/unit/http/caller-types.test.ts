import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { AdminIdentity, AgentIdentity, AnonymousIdentity } from '../../../lib/auth/identity.ts';
import { json } from '../../../lib/http/responses.ts';
import { ADMIN_ONLY, ADMIN_OR_AGENT, route, type CallerOf } from '../../../lib/http/route.ts';
import { createTestApp } from '../../../lib/testing.ts';

// Access rules narrow the handler's `identity`: checked by tsc (the type assertions below fail the
// type check when narrowing breaks) and at run time (the chain lets only those callers through).

type Equal<X, Y> = (<T>() => T extends X ? 1 : 2) extends <T>() => T extends Y ? 1 : 2 ? true : false;
const same = <X, Y>(proof: Equal<X, Y>) => proof;

const seen: unknown[] = [];
const labelled = route({
  method: 'GET',
  path: '/api/test/caller/labelled',
  access: { roles: ADMIN_OR_AGENT, gate: 'open', needsLabel: true },
  handle: ({ identity }) => {
    seen.push({ role: identity.role, label: identity.label, capabilities: [...identity.capabilities] });
    return json({});
  },
});
const adminOnly = route({
  method: 'GET',
  path: '/api/test/caller/admin',
  access: { roles: ADMIN_ONLY, gate: 'open' },
  handle: ({ identity }) => {
    seen.push({ role: identity.role, commonName: identity.commonName });
    return json({});
  },
});
const either = route({
  method: 'GET',
  path: '/api/test/caller/either',
  access: { roles: ADMIN_OR_AGENT, gate: 'open' },
  handle: ({ identity }) => json({ role: identity.role }),
});
const open = route({
  method: 'GET',
  path: '/api/test/caller/public',
  access: { roles: ADMIN_OR_AGENT, gate: 'open', public: true },
  handle: ({ identity }) => json({ role: identity.role }),
});

type IdentityOf<R extends { handle(ctx: never): unknown }> = Parameters<R['handle']>[0] extends { identity: infer I } ? I : never;

const s = suite('access rules narrow the caller type');

s('types: needsLabel -> agent, admin-only -> admin, public -> anonymous, otherwise admin or agent', () => {
  assert.ok(same<IdentityOf<typeof labelled>, AgentIdentity>(true));
  assert.ok(same<IdentityOf<typeof adminOnly>, AdminIdentity>(true));
  assert.ok(same<IdentityOf<typeof either>, AdminIdentity | AgentIdentity>(true));
  assert.ok(same<IdentityOf<typeof open>, AnonymousIdentity>(true));
  assert.ok(same<CallerOf<{ roles: readonly ['admin', 'agent']; gate: 'open'; needsLabel: false }>, AdminIdentity | AgentIdentity>(true));
  // @ts-expect-error an admin-or-agent route does not receive an admin identity
  assert.ok(same<IdentityOf<typeof either>, AdminIdentity>(true));
});

s('run time: only the callers the types promise reach the handlers', async () => {
  const t = await createTestApp({ routes: [labelled, adminOnly] });
  try {
    seen.length = 0;
    assert.is((await t.call('GET', '/api/test/caller/labelled', { as: 'admin' })).status, 400);
    assert.is((await t.call('GET', '/api/test/caller/labelled', { as: { dn: 'CN=agent:' } })).status, 400);
    assert.is((await t.call('GET', '/api/test/caller/labelled', { as: { agent: 'laptop-1' } })).status, 200);
    assert.is((await t.call('GET', '/api/test/caller/admin', { as: { agent: 'laptop-1' } })).status, 403);
    assert.is((await t.call('GET', '/api/test/caller/admin', { as: 'admin' })).status, 200);
    assert.equal(seen, [
      { role: 'agent', label: 'laptop-1', capabilities: [] },
      { role: 'admin', commonName: 'admin' },
    ]);
  } finally {
    await t.close();
  }
});

s.run();
