// Deleting a site takes its name out of every agent's allowedSites, so a later site of the same
// name starts with no agent access; a delete that fails gives the grants back where they were.
import * as assert from 'uvu/assert';
import { managedSite, siteSuite, type SiteTestApp } from './helpers.ts';

const s = siteSuite('sites: agent grants on delete');

const allowedSites = (t: SiteTestApp) => Object.fromEntries(t.services.store.agents.value.map((a) => [a.label, a.allowedSites]));

s('a site made again under a deleted site\'s name is not visible to the agents granted the old one', async ({ t }) => {
  const old = await managedSite(t, 'docs');
  await managedSite(t, 'blog');
  await t.addAgent('reader', ['sites:read'], ['docs', 'blog']);
  await t.addAgent('other', ['sites:read'], ['blog']);
  const listedBefore = await t.call('GET', '/api/certs/agent');
  assert.equal(listedBefore.body.agents.map((a: { allowedSites: string[] }) => a.allowedSites), [['docs', 'blog'], ['blog']]);

  assert.is((await t.call('DELETE', `/api/sites/${old.id}`)).status, 200);
  assert.equal(allowedSites(t), { reader: ['blog'], other: ['blog'] });
  const listedAfter = await t.call('GET', '/api/certs/agent');
  assert.equal(listedAfter.body.agents.map((a: { allowedSites: string[] }) => a.allowedSites), [['blog'], ['blog']], 'the cached list is refreshed');

  const again = await managedSite(t, 'docs');
  const seen = await t.call('GET', '/api/sites', { as: { agent: 'reader' } });
  assert.equal(seen.body.sites.map((x: { name: string }) => x.name), ['blog']);
  const files = await t.call('GET', `/api/sites/${again.id}/files`, { as: { agent: 'reader' } });
  assert.equal([files.status, files.body], [403, { error: 'You do not have access to this site' }]);
});

s('a grant given while the delete is underway does not outlive the site', async ({ t }) => {
  const site = await managedSite(t, 'docs');
  await t.addAgent('reader', ['sites:read'], []);
  const storage = t.services.system.siteStorage;
  const remove = storage.remove;
  let granted: number | undefined;
  storage.remove = async (id) => {
    // the record still names the site here, so the name check lets the grant through
    granted = (await t.call('PATCH', '/api/certs/agent/reader/allowed-sites', { body: { allowedSites: ['docs'] } })).status;
    await remove(id);
  };
  assert.is((await t.call('DELETE', `/api/sites/${site.id}`)).status, 200);
  assert.is(granted, 200);
  assert.equal(allowedSites(t), { reader: [] });
});

s('a delete that fails after the grants were withdrawn gives them back in place', async ({ t }) => {
  const site = await managedSite(t, 'docs');
  await managedSite(t, 'blog');
  await t.addAgent('reader', ['sites:read'], ['docs', 'blog']);
  t.sandbox.failNext('siteStorage.remove', 'EBUSY');
  const res = await t.call('DELETE', `/api/sites/${site.id}`);
  assert.equal([res.status, res.body.error], [500, 'Failed to delete site']);
  assert.equal(allowedSites(t), { reader: ['docs', 'blog'] });
  assert.is((await t.call('GET', `/api/sites/${site.id}/files`, { as: { agent: 'reader' } })).status, 200);
});

s('a failed save of the record gives the grants back; a failed second withdrawal after it does not', async ({ t }) => {
  const site = await managedSite(t, 'docs');
  await t.addAgent('reader', ['sites:read'], ['docs']);
  const { sites, agents } = t.services.store;
  const saveRecord = sites.edit.bind(sites);
  sites.edit = (() => Promise.reject(new Error('disk full'))) as typeof sites.edit;
  const failed = await t.call('DELETE', `/api/sites/${site.id}`);
  sites.edit = saveRecord;
  assert.equal([failed.status, failed.body.details], [500, 'State persistence failed: disk full']);
  assert.equal(allowedSites(t), { reader: ['docs'] });

  const saveAgents = agents.edit.bind(agents);
  let calls = 0;
  agents.edit = ((change: Parameters<typeof agents.edit>[0]) => (++calls === 2 ? Promise.reject(new Error('disk full')) : saveAgents(change))) as typeof agents.edit;
  const res = await t.call('DELETE', `/api/sites/${site.id}`);
  agents.edit = saveAgents;
  assert.is(res.status, 200, JSON.stringify(res.body));
  assert.is(calls, 2);
  assert.equal(allowedSites(t), { reader: [] }, 'the record is gone, so the grants stay withdrawn');
});

s.run();
