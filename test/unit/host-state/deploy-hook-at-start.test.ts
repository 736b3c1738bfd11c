// A start (reconcileAtStart) asks the certificates adapter to keep certbot's deploy hook as this
// release writes it, once onboarding is done; a failure to is a warning, and the start goes on.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { reconcileAtStart } from '../../../lib/host-state/reconcile.ts';
import { createTestApp } from '../../../lib/testing.ts';
import { tunnelApp, type TunnelTestApp } from '../tunnels/helpers.ts';

const s = suite<{ t: TunnelTestApp }>('the deploy hook at a start', {} as { t: TunnelTestApp });
s.before.each(async (ctx) => {
  ctx.t = await tunnelApp();
});
s.after.each(async ({ t }) => t.close());

s('an onboarded start checks the hook; a rewrite is logged, a failure warned and the refresh still runs', async ({ t }) => {
  let asked = 0;
  const certs = t.services.system.certs;
  certs.keepDeployHook = async () => ++asked === 1;
  await reconcileAtStart(t.services);
  assert.is(asked, 1);
  certs.keepDeployHook = async () => {
    throw new Error('read-only file system');
  };
  const refreshed = await reconcileAtStart(t.services);
  assert.ok(Array.isArray(refreshed.rewritten), 'the refresh ran');
  const lines = t.services.log.recent(500).map((entry) => entry.message);
  assert.ok(lines.some((line) => line === 'rewrote certbot\'s deploy hook for this release'), lines.join('\n'));
  assert.ok(lines.some((line) => line === 'checking certbot\'s deploy hook failed: read-only file system'), lines.join('\n'));
});

s('a start before onboarding asks nothing of the hook', async () => {
  const fresh = await createTestApp();
  try {
    let asked = 0;
    fresh.services.system.certs.keepDeployHook = async () => (asked++, false);
    await reconcileAtStart(fresh.services);
    assert.is(asked, 0);
  } finally {
    await fresh.close();
  }
});

s.run();
