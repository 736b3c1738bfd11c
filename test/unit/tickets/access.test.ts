import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { routes } from '../../../handlers/index.ts';
import { makeTestApp } from '../../helpers/app.ts';

const s = suite('tickets: authentication and gating');
const ticketRoutes = routes.filter((r) => r.path.startsWith('/api/tickets'));
const concrete = (path: string) => path.replace(/:\w+/g, 'ab');

s('every /api/tickets route is a management route', () => {
  assert.is(ticketRoutes.length, 19);
  for (const r of ticketRoutes) assert.is(r.access.gate, 'management', `${r.method} ${r.path}`);
});

s('every ticket endpoint needs a client certificate (403 mTLS certificate required)', async () => {
  const t = await makeTestApp();
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
  const t = await makeTestApp();
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
