import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { placeholderBytes, placeholderPage } from '../../../lib/sites/files/placeholder.ts';
import { createSite, DOMAIN, managedSite, siteDirectories, siteSuite, type SiteTestApp, siteVhostState, uploadFiles } from './helpers.ts';

// A new site's placeholder index.html: written with the site, through the upload path
// (0644), not counted as uploaded bytes, replaced by the first index.html upload, and never left
// behind by a create that fails.

const s = siteSuite('sites: placeholder page');

const listing = async (t: SiteTestApp, id: string) => (await t.call('GET', `/api/sites/${id}/files`)).body.files as { name: string; size: number }[];

s('managed and custom sites start with an index.html naming the site, mode 0644, totalSize 0', async ({ t }) => {
  const managed = await managedSite(t, 'blog');
  const custom = (await createSite(t, { name: 'shop', type: 'custom', customDomain: 'shop.customer.example' })).body.site;
  for (const [site, name] of [[managed, 'blog'], [custom, 'shop']] as const) {
    const file = join(site.rootPath, 'index.html');
    assert.is(readFileSync(file, 'utf8'), placeholderPage(name));
    assert.match(readFileSync(file, 'utf8'), new RegExp(`<title>${name}</title>`));
    assert.is(statSync(file).mode & 0o777, 0o644);
    assert.equal((await listing(t, site.id)).map((f) => f.name), ['index.html']);
  }
  assert.ok(t.services.store.sites.value.every((site) => site.totalSize === 0), 'the spec: bytes of uploaded files');
});

s('the first upload of index.html replaces the page; totalSize counts only uploads', async ({ t }) => {
  const site = await managedSite(t, 'blog');
  const other = await uploadFiles(t, site.id, { 'app.js': 'x'.repeat(10) });
  assert.is(other.status, 200);
  assert.is(t.services.store.sites.value[0]?.totalSize, 10, 'the placeholder is not an uploaded file');
  assert.is((await uploadFiles(t, site.id, { 'index.html': '<h1>mine</h1>' })).status, 200);
  assert.is(readFileSync(join(site.rootPath, 'index.html'), 'utf8'), '<h1>mine</h1>');
  assert.is(t.services.store.sites.value[0]?.totalSize, 23);
  assert.equal((await listing(t, site.id)).map((f) => f.name), ['app.js', 'index.html']);
});

s('an index.html in a folder leaves the page; deleting the page is allowed', async ({ t }) => {
  const site = await managedSite(t, 'blog');
  await uploadFiles(t, site.id, { 'index.html': '<p>docs</p>' }, 'docs');
  assert.is(readFileSync(join(site.rootPath, 'index.html'), 'utf8'), placeholderPage('blog'));
  assert.is((await t.call('DELETE', `/api/sites/${site.id}/files`, { body: { path: 'index.html' } })).status, 200);
  assert.not.ok(existsSync(join(site.rootPath, 'index.html')));
  assert.is(t.services.store.sites.value[0]?.totalSize, 11);
});

s('the page is not over the size limit: with a 1-byte limit a new site is not warned about', async ({ t }) => {
  await t.services.config.update({ maxSiteSize: 1 });
  const site = await managedSite(t, 'blog');
  assert.equal((await uploadFiles(t, site.id, { 'a.txt': 'a' })).body, { ok: true, files: ['a.txt'] });
});

s('placeholderBytes: only a byte-identical page counts', async ({ t }) => {
  const site = await managedSite(t, 'blog');
  assert.is(await placeholderBytes(site.rootPath, 'blog'), Buffer.byteLength(placeholderPage('blog')));
  assert.is(await placeholderBytes(site.rootPath, 'shop'), 0, 'another site name is another page');
  const same = placeholderPage('blog').replace('<h1>', '<h2>');
  writeFileSync(join(site.rootPath, 'index.html'), same);
  assert.is(await placeholderBytes(site.rootPath, 'blog'), 0, 'same size, other bytes');
  assert.is(await placeholderBytes(join(site.rootPath, 'missing'), 'blog'), 0);
});

s('the page escapes the name', () => {
  assert.match(placeholderPage('<a&"b\'>'), /<h1>&lt;a&amp;&quot;b&apos;&gt;<\/h1>/);
});

s('a failed page write is a 500 "Directory creation failed: ..." that leaves no directory, vhost or record', async ({ t }) => {
  const storage = t.services.system.siteStorage;
  const create = storage.create.bind(storage);
  // a folder where the page goes: the write fails after the directory exists
  storage.create = async (id) => {
    const dir = await create(id);
    mkdirSync(join(dir, 'index.html'));
    return dir;
  };
  const res = await createSite(t, { name: 'blog', type: 'managed' });
  assert.is(res.status, 500);
  assert.is(res.body.error, 'Failed to create site');
  assert.match(res.body.details, /^Directory creation failed: /);
  assert.is((await siteVhostState(t, `blog.${DOMAIN}`)).written, false);
  assert.equal(siteDirectories(t), []);
  assert.equal(t.services.store.sites.value, []);
  storage.create = create;
  assert.is((await createSite(t, { name: 'blog', type: 'managed' })).status, 201, 'the name was released');
});

s.run();
