import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { type Caller } from '../../../lib/testing.ts';
import { defined } from '../../helpers/defined.ts';
import { managedSite, siteSuite, type SiteTestApp } from './helpers.ts';

const s = siteSuite('sites: file listing and delete', async (t) => {
  const site = await managedSite(t, 'blog');
  const root = site.rootPath;
  mkdirSync(join(root, 'assets', 'img'), { recursive: true });
  writeFileSync(join(root, 'index.html'), '<h1>hello</h1>');
  writeFileSync(join(root, 'assets', 'app.js'), 'console.log(1)');
  writeFileSync(join(root, '.env'), 'SECRET=1');
  return { site };
});

const files = (t: SiteTestApp, id: string, path?: string, as?: Caller) =>
  t.call('GET', `/api/sites/${id}/files${path === undefined ? '' : `?path=${encodeURIComponent(path)}`}`, { as });

s('GET files: directories first, every field of the File entry, hidden files not listed, path echoed', async ({ t, site }) => {
  const res = await files(t, site.id);
  assert.is(res.status, 200);
  assert.is(res.body.path, '.');
  assert.equal(res.body.files.map((f: { name: string }) => f.name), ['assets', 'index.html']);
  const [dir, file] = res.body.files;
  assert.equal({ ...dir, modifiedAt: 'x' }, { name: 'assets', type: 'directory', size: 0, modifiedAt: 'x', relativePath: 'assets' });
  assert.equal({ ...file, modifiedAt: 'x' }, { name: 'index.html', type: 'file', size: 14, modifiedAt: 'x', relativePath: 'index.html' });
  assert.ok(file.modifiedAt.endsWith('Z') && !Number.isNaN(Date.parse(file.modifiedAt)));
  const sub = await files(t, site.id, 'assets');
  assert.equal(sub.body.files.map((f: { relativePath: string }) => f.relativePath), ['assets/img', 'assets/app.js']);
});

const refused: Array<[string, string]> = [
  ['..', 'Path traversal is not allowed'],
  ['../', 'Path traversal is not allowed'],
  ['assets/../..', 'Path traversal is not allowed'],
  ['assets/../../etc', 'Path traversal is not allowed'],
  ['..\\..\\etc', 'Path traversal is not allowed'],
  ['assets\\..\\..', 'Path traversal is not allowed'],
  ['%2e%2e', 'Path traversal is not allowed'],
  ['%2E%2E/%2e%2e', 'Path traversal is not allowed'],
  ['%252e%252e', 'Path traversal is not allowed'],
  ['%25252e%25252e/x', 'Path traversal is not allowed'],
  ['..%2f..%2fetc', 'Path traversal is not allowed'],
  ['assets%5c..%5c..', 'Path traversal is not allowed'],
  ['/etc', 'Absolute paths are not allowed'],
  ['/', 'Absolute paths are not allowed'],
  ['\\etc', 'Absolute paths are not allowed'],
  ['C:\\Windows', 'Absolute paths are not allowed'],
  ['%2fetc', 'Absolute paths are not allowed'],
  ['assets\0', 'Null bytes are not allowed in paths'],
  ['assets%00', 'Null bytes are not allowed in paths'],
  ['.env', 'Hidden files and folders are not allowed'],
  ['.git/config', 'Hidden files and folders are not allowed'],
  ['assets/.hidden', 'Hidden files and folders are not allowed'],
  ['%2egit', 'Hidden files and folders are not allowed'],
];
s('GET files refuses traversal, absolute, NUL and hidden paths in every spelling with 400 {error}', async ({ t, site }) => {
  for (const [path, error] of refused) {
    const res = await files(t, site.id, path);
    assert.equal([res.status, res.body], [400, { error }], JSON.stringify(path));
  }
});

s('DELETE files refuses the same paths with 400 {error} and deletes nothing', async ({ t, site }) => {
  for (const [path, error] of refused) {
    const res = await t.call('DELETE', `/api/sites/${site.id}/files`, { body: { path } });
    assert.equal([res.status, res.body], [400, { error }], JSON.stringify(path));
  }
  assert.ok(existsSync(join(site.rootPath, '.env')));
});

s('a symlink that leads out of the site is refused; one inside it is followed', async ({ t, site }) => {
  const outside = mkdtempSync(join(t.dir, 'outside-')); // beside the sites root, removed with the app
  writeFileSync(join(outside, 'secret.txt'), 'x');
  symlinkSync(outside, join(site.rootPath, 'escape'));
  symlinkSync(join(site.rootPath, 'assets'), join(site.rootPath, 'inside'));
  assert.equal((await files(t, site.id, 'escape')).body, { error: 'Path leads outside the site' });
  assert.equal((await t.call('DELETE', `/api/sites/${site.id}/files`, { body: { path: 'escape/secret.txt' } })).body, { error: 'Path leads outside the site' });
  assert.ok(existsSync(join(outside, 'secret.txt')));
  assert.is((await files(t, site.id, 'inside')).status, 200);
});

s('GET files of a missing directory or a file: 400 {error}; unknown site 404; malformed id 400', async ({ t, site }) => {
  assert.equal((await files(t, site.id, 'nope')).body, { error: "Directory 'nope' not found" });
  assert.equal((await files(t, site.id, 'index.html')).body, { error: "'index.html' is not a directory" });
  const missing = await files(t, '0b6f3e1c-1c9a-4e0e-9a53-2f4f3d0c6a11');
  assert.equal([missing.status, missing.body], [404, { error: 'Site not found' }]);
  assert.is((await files(t, 'nope')).status, 400);
});

s('DELETE files: a file, a folder whole, totalSize follows; missing file and root refused', async ({ t, site }) => {
  await t.services.store.sites.update((list) => void (defined(list[0], 'the site').totalSize = 999));
  const one = await t.call('DELETE', `/api/sites/${site.id}/files`, { body: { path: 'index.html' } });
  assert.equal([one.status, one.body], [200, { ok: true }]);
  assert.not.ok(existsSync(join(site.rootPath, 'index.html')));
  assert.is(t.services.store.sites.value[0]?.totalSize, 22, 'assets/app.js (14) and .env (8) remain');
  await t.call('DELETE', `/api/sites/${site.id}/files`, { body: { path: 'assets' } });
  assert.not.ok(existsSync(join(site.rootPath, 'assets')));
  assert.is(t.services.store.sites.value[0]?.totalSize, 8);
  assert.equal((await t.call('DELETE', `/api/sites/${site.id}/files`, { body: { path: 'gone.txt' } })).body, { error: "File 'gone.txt' not found" });
  assert.equal((await t.call('DELETE', `/api/sites/${site.id}/files`, { body: { path: '.' } })).body, { error: 'The site root cannot be deleted' });
});

s('DELETE files: missing or empty path is a validation failure', async ({ t, site }) => {
  for (const body of [{}, { path: '' }]) {
    const res = await t.call('DELETE', `/api/sites/${site.id}/files`, { body });
    assert.is(res.status, 400);
    assert.is(res.body.error, 'Validation failed');
    assert.is(res.body.details.issues[0].path, 'path');
  }
});

s('agents: capability first (403 even for an unknown id), then the site must be in allowedSites', async ({ t, site }) => {
  await t.addAgent('reader', ['sites:read'], ['blog']);
  await t.addAgent('other', ['sites:read', 'sites:write'], ['elsewhere']);
  const reader = { agent: 'reader' };
  const other = { agent: 'other' };
  assert.is((await files(t, site.id, '.', reader)).status, 200);
  const noWrite = await t.call('DELETE', `/api/sites/0b6f3e1c-1c9a-4e0e-9a53-2f4f3d0c6a11/files`, { as: reader, body: { path: 'x' } });
  assert.equal([noWrite.status, noWrite.body], [403, { error: 'Insufficient certificate capability' }]);
  const notGiven = await files(t, site.id, '.', other);
  assert.equal([notGiven.status, notGiven.body], [403, { error: 'You do not have access to this site' }]);
  const notGivenDelete = await t.call('DELETE', `/api/sites/${site.id}/files`, { as: other, body: { path: 'index.html' } });
  assert.equal([notGivenDelete.status, notGivenDelete.body], [403, { error: 'You do not have access to this site' }]);
  assert.ok(existsSync(join(site.rootPath, 'index.html')));
});

s.run();
