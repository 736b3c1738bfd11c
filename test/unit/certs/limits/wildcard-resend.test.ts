// A wildcard PUT sent again (same provider, already in wildcard mode) issues nothing, so no limit may
// refuse it, however full the counts are; a switch that does order the wildcard is still counted.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { CertLimitsSetting } from '../../../../lib/certs/limits/schema.ts';
import { sandboxControls } from '../../../../lib/system/sandbox-system.ts';
import { createTestApp, type TestApp } from '../../../../lib/testing.ts';
import { ManualClock } from '../../../helpers/manual-clock.ts';

const DOMAIN = 'relay.example.com';
const SECRET = 'c2VjcmV0LWtleS1mb3ItdGVzdHM=';
const WILDCARD = { mode: 'wildcard', provider: 'rfc2136', credentials: { server: '127.0.0.1', port: 15353, name: 'certbot-key', secret: SECRET }, propagationSeconds: 0 };

async function app(certLimits: CertLimitsSetting) {
  const t = await createTestApp({ clock: new ManualClock(), config: { certLimits } });
  await t.completeOnboarding(DOMAIN);
  return t;
}
const put = (t: TestApp, body: unknown) => t.call('PUT', '/api/settings/certificates', { body });
const wildcardOrders = (t: TestApp) => sandboxControls(t.services.system).eventsOf('certs.issueWildcard').length;

const s = suite('certificate limits: a wildcard PUT that issues nothing');

for (const [limit, setting] of [
  ['ordersPerAccount', { ordersPerAccount: 1 }],
  ['duplicatePerNameSet', { duplicatePerNameSet: 1 }],
  ['newPerRegisteredDomain', { newPerRegisteredDomain: 1 }],
] as const) {
  s(`sent again in wildcard mode with ${limit} full: 200, nothing ordered, nothing counted`, async () => {
    const t = await app(setting);
    try {
      const first = await put(t, WILDCARD);
      assert.is(first.status, 200, JSON.stringify(first.body));
      const recorded = t.services.store.certIssuances.value.length;
      const again = await put(t, WILDCARD);
      assert.is(again.status, 200, JSON.stringify(again.body));
      assert.is(wildcardOrders(t), 1, 'certbot ran once');
      assert.is(t.services.store.certIssuances.value.length, recorded, 'the resend is not in the ledger');
    } finally {
      await t.close();
    }
  });
}

s('a retry after a failed switch that left the lineage (the vhost step failed on a lineage that was there): no order, no refusal', async () => {
  const t = await app({ duplicatePerNameSet: 1 });
  try {
    assert.is((await put(t, WILDCARD)).status, 200);
    // back to per-name, the lineage left over (its removal failed): the next switch finds it valid
    sandboxControls(t.services.system).failNext('certs.remove', 'busy');
    assert.is((await put(t, { mode: 'per-name' })).status, 200);
    assert.ok(await t.services.system.certs.has(DOMAIN));
    sandboxControls(t.services.system).failNext('proxy.apply', 'nginx: [emerg] test failed');
    const failed = await put(t, WILDCARD);
    assert.is(failed.status, 500, JSON.stringify(failed.body));
    const retried = await put(t, WILDCARD);
    assert.is(retried.status, 200, JSON.stringify(retried.body));
    assert.is(wildcardOrders(t), 1, 'the wildcard was ordered once');
  } finally {
    await t.close();
  }
});

s('the first switch is still one order of both names, and refused when its limit is full', async () => {
  const t = await app({ ordersPerAccount: 1 });
    await t.call('POST', '/api/tunnels', { body: { subdomain: 'one', port: 9001 } });
  try {
    const refused = await put(t, WILDCARD);
    assert.is(refused.status, 500);
    assert.match(refused.body.details, /ordersPerAccount/);
    assert.is(wildcardOrders(t), 0);
  } finally {
    await t.close();
  }
});

s.run();
