// Tunnels and sites looked records up with `.find` over the whole list, and sites
// saved a change by rewriting the whole collection (`update`), though both collections are keyed
// by id. Lookups now use the key, and every site write is one record's change.
import * as assert from 'uvu/assert';
import type { RecordChange } from '../../../lib/state/record-collection.ts';
import type { SiteRecord } from '../../../lib/state/schemas.ts';
import { findSite } from '../../../lib/sites/context.ts';
import { findTunnel } from '../../../lib/tunnels/context.ts';
import { createSite, managedSite, siteSuite, uploadFiles } from './helpers.ts';

const s = siteSuite('tunnels and sites: records by their key');

/** Makes reading the whole list fail: a lookup by key never needs it. */
function forbidWholeList(collection: object): () => void {
  Object.defineProperty(collection, 'value', { configurable: true, get: () => assert.unreachable('the whole list was read for one record') });
  return () => void Reflect.deleteProperty(collection, 'value');
}

s('findTunnel and findSite read one record by its id, not the whole list', async ({ t }) => {
  const site = await managedSite(t, 'blog');
  const created = await t.call('POST', '/api/tunnels', { body: { subdomain: 'app', port: 8123 } });
  assert.is(created.status, 201, JSON.stringify(created.body));
  const { store } = t.services;
  const allowTunnels = forbidWholeList(store.tunnels);
  const allowSites = forbidWholeList(store.sites);
  try {
    assert.is(findTunnel(t.services, created.body.tunnel.id)?.port, 8123);
    assert.is(findTunnel(t.services, '00000000-0000-4000-8000-000000000000'), undefined);
    assert.is(findSite(t.services, site.id)?.name, 'blog');
  } finally {
    allowTunnels();
    allowSites();
  }
});

s('create, settings, upload size and verify-dns each write the one site they change', async ({ t }) => {
  const seen: (readonly RecordChange<SiteRecord>[] | null)[] = [];
  t.services.store.sites.watch((changes) => seen.push(changes));
  const site = await managedSite(t, 'blog');
  assert.is((await t.call('PATCH', `/api/sites/${site.id}`, { body: { spaMode: true } })).status, 200);
  assert.is((await uploadFiles(t, site.id, { 'app.js': 'x'.repeat(100) })).status, 200);
  const custom = await createSite(t, { name: 'shop', type: 'custom', customDomain: 'shop.customer.example' });
  t.sandbox.setDns('shop.customer.example', ['203.0.113.10']);
  const verified = await t.call('POST', `/api/sites/${custom.body.site.id}/verify-dns`);
  assert.is(verified.body.ok, true, JSON.stringify(verified.body));
  assert.ok(seen.length >= 5, `${seen.length} writes`);
  assert.not.ok(seen.includes(null), 'a site write rewrote the whole collection');
  for (const changes of seen) assert.is(changes!.length, 1);
});

s.run();
