// POST /api/sites/:id/files through the app; through a real socket and Node's HTTP server (an upload
// cut off mid-file, an early 413): test/integration/local/sites/upload-edge.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { callerHeaders } from '../../../lib/testing.ts';
import { managedSite, siteSuite, uploadFiles as upload } from './helpers.ts';

const s = siteSuite('sites: POST /api/sites/:id/files', async (t) => ({ site: await managedSite(t, 'blog') }));

s('200 {ok, files}: the files land under `path` and the listing shows them', async ({ t, site }) => {
  const res = await upload(t, site.id, { 'index.html': '<h1>hi</h1>', 'app.js': 'x()' }, 'assets');
  assert.equal([res.status, res.body], [200, { ok: true, files: ['assets/index.html', 'assets/app.js'] }]);
  assert.is(readFileSync(join(site.rootPath, 'assets', 'app.js'), 'utf8'), 'x()');
  const listed = await t.call('GET', `/api/sites/${site.id}/files?path=assets`);
  assert.equal(listed.body.files.map((f: { name: string }) => f.name), ['app.js', 'index.html']);
  assert.is(t.services.store.sites.value[0]!.totalSize, 14);
});

s('a refused name answers 400 "Upload failed: ..." and writes nothing', async ({ t, site }) => {
  const res = await upload(t, site.id, { 'ok.html': 'fine', 'shell.php': '<?php' });
  assert.equal([res.status, res.body], [400, { error: "Upload failed: Files of type '.php' are not allowed" }]);
  const traversal = await upload(t, site.id, { 'a.html': 'x' }, '../..');
  assert.equal([traversal.status, traversal.body], [400, { error: 'Upload failed: Path traversal is not allowed' }]);
  assert.equal(readdirSync(site.rootPath), ['index.html'], 'only the page the site was made with');
});

s('a body that is no form, or a broken one, answers 400 "Upload failed: ..." too (the spec\'s stream errors)', async ({ t, site }) => {
  const send = async (contentType: string, body: string) => {
    const response = await t.app.fetch(new Request(`http://panel.test/api/sites/${site.id}/files`, { method: 'POST', headers: { ...callerHeaders('admin'), 'content-type': contentType }, body }));
    return [response.status, await response.json()];
  };
  assert.equal(await send('application/json', '{}'), [400, { error: 'Upload failed: Content-Type must be multipart/form-data' }]);
  assert.equal(await send('multipart/form-data; boundary=b', '--b\r\ncontent-disposition: form-data; name="file"; filename="a.txt"\r\n\r\ncut short'), [400, { error: 'Upload failed: Malformed multipart body' }]);
  assert.equal(readdirSync(site.rootPath), ['index.html']);
});

s('a form without a `file` part is refused', async ({ t, site }) => {
  const form = new FormData();
  form.append('other', new Blob(['x']), 'x.txt');
  const response = await t.app.fetch(new Request(`http://panel.test/api/sites/${site.id}/files`, { method: 'POST', body: form, headers: callerHeaders('admin') }));
  assert.equal([response.status, await response.json()], [400, { error: "Upload failed: no 'file' part in the form" }]);
});

s('agents need sites:write and the site in allowedSites; unknown site 404', async ({ t, site }) => {
  await t.addAgent('reader', ['sites:read'], ['blog']);
  await t.addAgent('writer', ['sites:write'], ['blog']);
  await t.addAgent('stranger', ['sites:write'], ['other']);
  assert.is((await upload(t, site.id, { 'a.html': 'x' }, '.', { agent: 'reader' })).status, 403);
  assert.equal((await upload(t, site.id, { 'a.html': 'x' }, '.', { agent: 'stranger' })).body, { error: 'You do not have access to this site' });
  assert.is((await upload(t, site.id, { 'a.html': 'x' }, '.', { agent: 'writer' })).status, 200);
  assert.is((await upload(t, '0b6f3e1c-1c9a-4e0e-9a53-2f4f3d0c6a11', { 'a.html': 'x' })).status, 404);
});

s.run();
