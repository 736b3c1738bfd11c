// A site whose folder was deleted by hand (outside the panel): its file routes recreate an empty
// folder instead of answering 500.
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { managedSite, siteSuite, uploadFiles } from './helpers.ts';

const s = siteSuite('sites: a site folder deleted by hand', async (t) => {
  const site = await managedSite(t, 'blog');
  rmSync(site.rootPath, { recursive: true, force: true });
  return { site };
});

s('the listing is empty and the folder is back, mode 0755', async ({ t, site }) => {
  const listed = await t.call('GET', `/api/sites/${site.id}/files`);
  assert.equal([listed.status, listed.body.files], [200, []]);
  assert.is(statSync(site.rootPath).mode & 0o777, 0o755);
});

s('an upload lands in a new folder', async ({ t, site }) => {
  const uploaded = await uploadFiles(t, site.id, { 'index.html': '<h1>back</h1>' });
  assert.equal([uploaded.status, uploaded.body], [200, { ok: true, files: ['index.html'] }]);
  assert.is(readFileSync(join(site.rootPath, 'index.html'), 'utf8'), '<h1>back</h1>');
});

s('deleting a file that is gone is the usual 400, not a 500', async ({ t, site }) => {
  const removed = await t.call('DELETE', `/api/sites/${site.id}/files`, { body: { path: 'index.html' } });
  assert.is(removed.status, 400, JSON.stringify(removed.body));
  assert.ok(existsSync(site.rootPath));
});

s.run();
