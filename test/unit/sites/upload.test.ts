import { existsSync, readdirSync, readFileSync, statSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { AppError } from '../../../lib/errors.ts';
import type { IncomingFile } from '../../../lib/sites/files/upload.ts';
import { formatBytes } from '../../../lib/sites/format-bytes.ts';
import { defined } from '../../helpers/defined.ts';
import { managedSite, siteSuite, type SiteTestApp } from './helpers.ts';

type Site = Awaited<ReturnType<typeof managedSite>>;
const s = siteSuite('sites: uploads (service)', async (t) => ({ site: await managedSite(t, 'blog') }));

const streamed = (originalName: string, content: string): IncomingFile => ({
  originalName,
  path: undefined,
  stream: () => new Blob([content]).stream(),
});

/** A part formidable left on disk, in the app's own directory (removed with the app). */
function onDisk(t: SiteTestApp, originalName: string, content: string): IncomingFile {
  const path = join(mkdtempSync(join(t.dir, 'upload-')), 'part');
  writeFileSync(path, content);
  return { originalName, path, stream: () => new Blob([readFileSync(path)]).stream() };
}

/** The page a new site starts with (placeholder.test.ts); not an uploaded file. */
const PLACEHOLDER = 'index.html';

const record = (t: SiteTestApp) => defined(t.services.store.sites.value[0], 'the stored site');
const upload = (t: SiteTestApp, site: Site, dir: string, files: IncomingFile[]) =>
  t.services.sites.uploadFiles(record(t), dir, files).catch((e: unknown) => e);

s('stores streamed and temp-file parts under the target directory; totalSize is what is on disk', async ({ t, site }) => {
  const temp = onDisk(t, 'app.js', 'console.log(1)');
  const result = await upload(t, site, 'assets', [streamed('index.html', '<h1>hi</h1>'), temp, streamed('img/logo.svg', '<svg/>')]);
  assert.equal(result, { files: ['assets/index.html', 'assets/app.js', 'assets/img/logo.svg'] });
  assert.is(readFileSync(join(site.rootPath, 'assets', 'app.js'), 'utf8'), 'console.log(1)');
  assert.is(readFileSync(join(site.rootPath, 'assets', 'img', 'logo.svg'), 'utf8'), '<svg/>');
  assert.not.ok(existsSync(temp.path!), 'the temp file was moved, not copied');
  assert.is(statSync(join(site.rootPath, 'assets', 'app.js')).mode & 0o777, 0o644);
  assert.is(record(t).totalSize, 11 + 14 + 6);
});

const refusals: Array<[string, string, string]> = [
  ['..', 'a.html', 'Upload failed: Path traversal is not allowed'],
  ['.', '../a.html', 'Upload failed: Path traversal is not allowed'],
  ['%2e%2e', 'a.html', 'Upload failed: Path traversal is not allowed'],
  ['/etc', 'a.html', 'Upload failed: Absolute paths are not allowed'],
  ['.', '/etc/passwd', 'Upload failed: Absolute paths are not allowed'],
  ['.', 'a\0.html', 'Upload failed: Null bytes are not allowed in paths'],
  ['.', '.htpasswd', 'Upload failed: Hidden files and folders are not allowed'],
  ['.git', 'config', 'Upload failed: Hidden files and folders are not allowed'],
  ['.', 'shell.php', "Upload failed: Files of type '.php' are not allowed"],
  ['.', 'SETUP.EXE', "Upload failed: Files of type '.exe' are not allowed"],
  ['.', 'run.sh', "Upload failed: Files of type '.sh' are not allowed"],
  // trailing dots and spaces are dropped by some servers and file systems: the ending before them counts
  ['.', 'shell.php.', "Upload failed: Files of type '.php' are not allowed"],
  ['.', 'shell.php ', "Upload failed: Files of type '.php' are not allowed"],
  ['img', 'shell.pHp. .', "Upload failed: Files of type '.php' are not allowed"],
];
s('refused paths and types answer 400 "Upload failed: ..." and write nothing, not even the good files', async ({ t, site }) => {
  for (const [dir, name, error] of refusals) {
    const result = await upload(t, site, dir, [streamed('good.html', 'ok'), streamed(name, 'x')]);
    assert.instance(result, AppError, `${dir} ${name}`);
    assert.equal([(result as AppError).status, (result as AppError).message], [400, error], `${dir} ${JSON.stringify(name)}`);
  }
  assert.equal(readdirSync(site.rootPath), [PLACEHOLDER], 'only the page the site was made with');
});

s('a name that collides with what is on disk is a 400 naming it, checked before anything is written, with no server path in it', async ({ t, site }) => {
  await upload(t, site, '.', [streamed('index.html', 'home'), streamed('img/logo.svg', '<svg/>')]);
  const collisions: Array<[string, string, string]> = [
    ['index.html', 'b.html', "Upload failed: 'index.html' is a file, not a folder"],
    ['.', 'index.html/b.html', "Upload failed: 'index.html' is a file, not a folder"],
    ['img/logo.svg/deeper', 'b.html', "Upload failed: 'img/logo.svg' is a file, not a folder"],
    ['.', 'img', "Upload failed: 'img' is a folder"],
    ['.', 'img/', "Upload failed: 'img' is a folder"],
  ];
  for (const [dir, name, error] of collisions) {
    const result = await upload(t, site, dir, [streamed('fresh.html', 'new'), streamed(name, 'x')]);
    assert.instance(result, AppError, `${dir} ${name}`);
    assert.equal([(result as AppError).status, (result as AppError).message], [400, error], `${dir} ${name}`);
  }
  assert.equal(readdirSync(site.rootPath).sort(), ['img', 'index.html'], 'fresh.html was not written');
  // within one upload too, in either order
  const fileThenFolder = await upload(t, site, 'new', [streamed('a/b', 'x'), streamed('a/b/c.html', 'y')]);
  assert.equal([(fileThenFolder as AppError).status, (fileThenFolder as AppError).message], [400, "Upload failed: 'new/a/b' is a file, not a folder"]);
  const folderThenFile = await upload(t, site, 'new', [streamed('a/b/c.html', 'y'), streamed('a/b', 'x')]);
  assert.equal([(folderThenFile as AppError).status, (folderThenFile as AppError).message], [400, "Upload failed: 'new/a/b' is a folder"]);
  assert.not.ok(existsSync(join(site.rootPath, 'new')), 'nothing of either was written');
  const tooLong = await upload(t, site, '.', [streamed(`${'x'.repeat(300)}.html`, 'x')]);
  assert.instance(tooLong, AppError);
  assert.is((tooLong as AppError).status, 400);
  assert.not.match((tooLong as AppError).message, site.rootPath);
  assert.not.match((tooLong as AppError).message, tmpdir());
});

s('over maxSiteSize the files are kept and the answer carries warning and totalSize', async ({ t, site }) => {
  await t.services.config.update({ maxSiteSize: 10 });
  const result = await upload(t, site, '.', [streamed('big.txt', 'x'.repeat(2048))]);
  assert.equal(result, { files: ['big.txt'], warning: 'Site size (2.0 KB) exceeds the 10 B size limit', totalSize: 2048 });
});

s('the warning states a 50 MiB limit as "50.0 MB", the spelling the spec quotes', () => {
  assert.is(formatBytes(50 * 1024 * 1024), '50.0 MB');
  assert.is(formatBytes(524_288_000), '500.0 MB');
  assert.is(formatBytes(1536), '1.5 KB');
  assert.is(formatBytes(1023), '1023 B');
});

s('a stream that breaks mid-file leaves no partial file and no temp file', async ({ t, site }) => {
  const broken: IncomingFile = {
    originalName: 'half.bin.txt',
    path: undefined,
    stream: () =>
      new ReadableStream({
        pull(controller) {
          controller.enqueue(new TextEncoder().encode('partial'));
          controller.error(new Error('client went away'));
        },
      }),
  };
  const result = await upload(t, site, '.', [broken]);
  assert.instance(result, AppError);
  assert.match((result as AppError).message, /^Upload failed: could not store half.bin.txt: client went away/);
  assert.equal(readdirSync(site.rootPath), [PLACEHOLDER]);
});

s('two uploads of one path end with one complete file, and totalSize matches the disk', async ({ t, site }) => {
  const a = 'a'.repeat(300_000);
  const b = 'b'.repeat(200_000);
  await Promise.all([upload(t, site, '.', [streamed('same.txt', a)]), upload(t, site, '.', [streamed('same.txt', b)])]);
  const content = readFileSync(join(site.rootPath, 'same.txt'), 'utf8');
  assert.ok(content === a || content === b, 'one whole version');
  assert.is(record(t).totalSize, content.length);
  assert.equal(readdirSync(site.rootPath).sort(), [PLACEHOLDER, 'same.txt']);
});

s('concurrent uploads of different files never push totalSize past the disk', async ({ t, site }) => {
  await Promise.all(Array.from({ length: 10 }, (_, i) => upload(t, site, 'many', [streamed(`f${i}.txt`, 'x'.repeat(1000 + i))])));
  const onDiskTotal = readdirSync(join(site.rootPath, 'many')).reduce((sum, f) => sum + statSync(join(site.rootPath, 'many', f)).size, 0);
  assert.is(record(t).totalSize, onDiskTotal);
  assert.is(onDiskTotal, 10 * 1000 + 45);
});

s.run();
