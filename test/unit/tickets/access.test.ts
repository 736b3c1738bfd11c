import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routes } from '../../../handlers/index.ts';
import { createTestApp } from '../../../lib/testing.ts';
import { ticketApp } from './fixtures.ts';

const s = suite('tickets: authentication and gating');
const ticketRoutes = routes.filter((r) => r.path.startsWith('/api/tickets'));
const concrete = (path: string) => path.replace(/:\w+/g, 'ab');

s('every /api/tickets route is a management route', () => {
  assert.is(ticketRoutes.length, 19);
  for (const r of ticketRoutes) assert.is(r.access.gate, 'management', `${r.method} ${r.path}`);
});

const routeKeys = (keep: (r: (typeof ticketRoutes)[number]) => boolean) => ticketRoutes.filter(keep).map((r) => `${r.method} ${r.path}`).sort();

s('the spec\'s Auth column: admin-only routes, and the rest open to admin and agent certificates', () => {
  assert.equal(routeKeys((r) => !r.access.roles.includes('agent')), [
    'DELETE /api/tickets/:ticketId',
    'DELETE /api/tickets/assignments/:agentLabel/:instanceScope',
    'DELETE /api/tickets/scopes/:name',
    'DELETE /api/tickets/sessions/:sessionId',
    'GET /api/tickets',
    'GET /api/tickets/assignments',
    'GET /api/tickets/scopes',
    'GET /api/tickets/sessions',
    'POST /api/tickets/assignments',
    'POST /api/tickets/scopes',
  ]);
  for (const r of ticketRoutes) assert.ok(r.access.roles.includes('admin'), `${r.method} ${r.path}`);
});

const LABELLED = [
  'GET /api/tickets/inbox',
  'PATCH /api/tickets/sessions/:sessionId',
  'POST /api/tickets/instances',
  'POST /api/tickets/sessions',
  'POST /api/tickets/sessions/:sessionId/heartbeat',
  'POST /api/tickets/validate',
];

s('"needs label" routes (and instance registration, 400 missing agent label) are exactly the spec\'s', () => {
  assert.equal(routeKeys((r) => r.access.needsLabel === true), LABELLED);
});

s('a needs-label route answers 400 Agent certificate label required to an admin and to an agent certificate with an empty label', async () => {
  const { t } = await ticketApp();
  try {
    const labelled = ticketRoutes.filter((r) => LABELLED.includes(`${r.method} ${r.path}`));
    for (const r of [...labelled, ticketRoutes.find((x) => x.path === '/api/tickets/instances/:instanceId/heartbeat')!]) {
      for (const caller of ['admin', { dn: 'CN=agent:' }] as const) {
        if (caller === 'admin' && r.path.endsWith('/instances/:instanceId/heartbeat')) continue; // admins may heartbeat instances
        const { status, body } = await t.call(r.method, concrete(r.path), { as: caller });
        assert.equal([status, body], [400, { error: 'Agent certificate label required' }], `${r.method} ${r.path} ${JSON.stringify(caller)}`);
      }
    }
  } finally {
    await t.close();
  }
});

s('every ticket endpoint needs a client certificate (403 mTLS certificate required)', async () => {
  const t = await createTestApp();
  try {
    for (const r of ticketRoutes) {
      const { status, body } = await t.call(r.method, concrete(r.path), { as: 'none' });
      assert.equal([status, body], [403, { error: 'mTLS certificate required' }], `${r.method} ${r.path}`);
    }
  } finally {
    await t.close();
  }
});

s('every ticket endpoint answers 503 before onboarding is complete', async () => {
  const t = await createTestApp();
  try {
    for (const r of ticketRoutes) {
      const { status, body } = await t.call(r.method, concrete(r.path));
      assert.equal([status, body.error], [503, 'Onboarding not complete'], `${r.method} ${r.path}`);
    }
  } finally {
    await t.close();
  }
});

s.run();
